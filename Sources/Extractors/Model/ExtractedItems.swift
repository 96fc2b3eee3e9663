import Chrono

/// A calendar event found in a conversation. Ids are the input's real ids (never the prompt's aliases).
public struct EventItem: Sendable, Hashable, Codable {
    public var title: String
    public var date: LocalDate
    public var time: LocalTime?
    public var endTime: LocalTime?
    public var location: String?
    public var description: String
    public var category: String
    public var confidence: Double
    public var datePhrase: String?
    /// The model's own date when code resolved the phrase to a different one; equal to `date` when the model's
    /// date was kept because code could not read the whole phrase (a flag for review).
    public var modelDate: LocalDate?
    public var sources: [String]
}

public struct DecisionItem: Sendable, Hashable, Codable {
    public var decision: String
    public var category: String
    /// A participant id, when the model named one that exists.
    public var decidedBy: String?
    public var deadline: LocalDate?
    public var datePhrase: String?
    public var modelDate: LocalDate?
    public var sources: [String]
}

public struct PriorityItem: Sendable, Hashable, Codable {
    public var messageID: String
    public var priority: String
    public var reason: String
    public var actionRequired: Bool
}

public struct RSVPResponse: Sendable, Hashable, Codable {
    public var participantID: String
    public var response: String
    public var messageID: String
}

/// An RSVP request with the answers seen. Each participant's status is derived from `responses`.
public struct RSVPItem: Sendable, Hashable, Codable {
    public var event: String
    public var eventDate: LocalDate
    public var deadline: LocalDate?
    public var requestedBy: String?
    public var datePhrase: String?
    public var modelDate: LocalDate?
    public var sources: [String]
    public var responses: [RSVPResponse]

    /// The latest answer of a participant, if any.
    public func response(of participantID: String) -> RSVPResponse? {
        responses.last { $0.participantID == participantID }
    }
}

public struct DeadlineItem: Sendable, Hashable, Codable {
    public var task: String
    public var deadline: LocalDate
    public var time: LocalTime?
    public var category: String
    public var priority: String
    public var details: String?
    public var datePhrase: String?
    public var modelDate: LocalDate?
    public var sources: [String]
}

/// Why an item the model returned was not kept (or was kept with a correction).
public struct ExtractionNote: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// The item cited message ids that were not in the input; they were removed (or the item was, if none remained).
        case unknownSource = "unknown_source"
        /// The item was dropped for another reason (e.g. its date could not be read).
        case dropped
        /// Code resolved the quoted date phrase to a different date than the model's; code's date was kept.
        case dateCorrected = "date_corrected"
        /// Code could not read the whole date phrase, so the model's plausible date was kept (`modelDate` equals the date).
        case dateUnconfirmed = "date_unconfirmed"
        /// The item's evidence was found in another message of the window than the one it cited; that one is cited now.
        case recited
        /// The item's evidence occurs in no message of the window; the item was dropped.
        case noEvidence = "no_evidence"
    }

    public let feature: ExtractionFeature
    public let kind: Kind
    public let message: String

    public var description: String { "\(feature.rawValue): \(kind.rawValue): \(message)" }
}

/// What one conversation yielded, per feature.
public struct Extraction: Sendable, Hashable, Codable {
    public var events: [EventItem] = []
    public var decisions: [DecisionItem] = []
    public var priorities: [PriorityItem] = []
    public var rsvps: [RSVPItem] = []
    public var deadlines: [DeadlineItem] = []
    public var notes: [ExtractionNote] = []

    public init() {}

    public func count(_ feature: ExtractionFeature) -> Int {
        switch feature {
        case .calendarEvents: events.count
        case .decisions: decisions.count
        case .priorityMessages: priorities.count
        case .rsvps: rsvps.count
        case .deadlines: deadlines.count
        }
    }
}
