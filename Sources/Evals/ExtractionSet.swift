import FeatureKit
/// All five item lists of one chat: a fixture's `expected` block, or what an extractor predicted for it.
///
/// One type for both sides so the eval runner can hand extractor output to the scorer unchanged.
public struct ExtractionSet: Sendable, Hashable, Codable {
    public var calendarEvents: [ScoredEvent]
    public var decisions: [ScoredDecision]
    public var priorityMessages: [ScoredPriorityMessage]
    public var rsvps: [ScoredRSVP]
    public var deadlines: [ScoredDeadline]

    public init(calendarEvents: [ScoredEvent] = [], decisions: [ScoredDecision] = [],
                priorityMessages: [ScoredPriorityMessage] = [], rsvps: [ScoredRSVP] = [], deadlines: [ScoredDeadline] = []) {
        self.calendarEvents = calendarEvents
        self.decisions = decisions
        self.priorityMessages = priorityMessages
        self.rsvps = rsvps
        self.deadlines = deadlines
    }

    /// Nothing in any list: a chat with nothing to extract.
    public var isEmpty: Bool { ScoredFeature.all.allSatisfy { $0.count(in: self) == 0 } }

    /// How many items of `feature` (0 for a feature that is not scored).
    public func count(of feature: ExtractionFeature) -> Int {
        ScoredFeature.named(feature)?.count(in: self) ?? 0
    }

    enum CodingKeys: String, CodingKey {
        case decisions, rsvps, deadlines
        case calendarEvents = "calendar_events"
        case priorityMessages = "priority_messages"
    }

    /// Missing lists decode as empty (a prediction may omit a feature); fixtures require all five through their schema.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        calendarEvents = try c.decodeIfPresent([ScoredEvent].self, forKey: .calendarEvents) ?? []
        decisions = try c.decodeIfPresent([ScoredDecision].self, forKey: .decisions) ?? []
        priorityMessages = try c.decodeIfPresent([ScoredPriorityMessage].self, forKey: .priorityMessages) ?? []
        rsvps = try c.decodeIfPresent([ScoredRSVP].self, forKey: .rsvps) ?? []
        deadlines = try c.decodeIfPresent([ScoredDeadline].self, forKey: .deadlines) ?? []
    }
}

/// What an extractor predicted for one fixture, shaped like the fixture's `expected` block.
public typealias PredictedItems = ExtractionSet
