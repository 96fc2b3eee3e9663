import Chrono
import FeatureKit

// The scorer's item shapes, one per scored feature: only what a label holds, named apart from the extractors'
// richer items (`DecisionItem`, ...), which `PredictionMapping` maps to these. Expected items (in fixtures) and
// predicted items (from an extractor) share them: in a fixture `source` lists every acceptable message id, in a
// prediction the ids it cites.
// Optional fields are encoded as explicit `null` so written items have the fixture's shape.

public struct ScoredEvent: Sendable, Hashable, Codable {
    public var title: String
    public var date: LocalDate
    public var time: LocalTime?
    public var location: String?
    public var category: EventCategory
    public var source: [String]

    public init(title: String, date: LocalDate, time: LocalTime? = nil, location: String? = nil,
                category: EventCategory, source: [String]) {
        self.title = title
        self.date = date
        self.time = time
        self.location = location
        self.category = category
        self.source = source
    }

    enum CodingKeys: String, CodingKey { case title, date, time, location, category, source }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encode(date, forKey: .date)
        try c.encode(time, forKey: .time)
        try c.encode(location, forKey: .location)
        try c.encode(category, forKey: .category)
        try c.encode(source, forKey: .source)
    }
}

public struct ScoredDecision: Sendable, Hashable, Codable {
    public var decision: String
    public var category: DecisionCategory
    public var source: [String]

    public init(decision: String, category: DecisionCategory, source: [String]) {
        self.decision = decision
        self.category = category
        self.source = source
    }
}

public struct ScoredPriorityMessage: Sendable, Hashable, Codable {
    /// The id of the flagged message.
    public var message: String
    public var priority: PriorityLevel
    public var actionRequired: Bool

    public init(message: String, priority: PriorityLevel, actionRequired: Bool) {
        self.message = message
        self.priority = priority
        self.actionRequired = actionRequired
    }

    enum CodingKeys: String, CodingKey {
        case message, priority
        case actionRequired = "action_required"
    }
}

public struct ScoredRSVP: Sendable, Hashable, Codable {
    public var event: String
    public var eventDate: LocalDate
    public var deadline: LocalDate?
    /// Participant id of whoever asked for the answer.
    public var requestedBy: String
    public var source: [String]
    /// The reference user's status and answer, not the group's.
    public var status: RSVPStatus
    public var response: RSVPResponse?

    public init(event: String, eventDate: LocalDate, deadline: LocalDate? = nil, requestedBy: String,
                source: [String], status: RSVPStatus, response: RSVPResponse? = nil) {
        self.event = event
        self.eventDate = eventDate
        self.deadline = deadline
        self.requestedBy = requestedBy
        self.source = source
        self.status = status
        self.response = response
    }

    enum CodingKeys: String, CodingKey {
        case event, deadline, source, status, response
        case eventDate = "event_date"
        case requestedBy = "requested_by"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(eventDate, forKey: .eventDate)
        try c.encode(deadline, forKey: .deadline)
        try c.encode(requestedBy, forKey: .requestedBy)
        try c.encode(source, forKey: .source)
        try c.encode(status, forKey: .status)
        try c.encode(response, forKey: .response)
    }
}

public struct ScoredDeadline: Sendable, Hashable, Codable {
    public var task: String
    public var deadline: LocalDate
    public var category: DeadlineCategory
    public var source: [String]

    public init(task: String, deadline: LocalDate, category: DeadlineCategory, source: [String]) {
        self.task = task
        self.deadline = deadline
        self.category = category
        self.source = source
    }
}
