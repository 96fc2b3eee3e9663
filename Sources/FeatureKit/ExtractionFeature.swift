/// The id of one parent feature: its prompt id, its schema's name, and its key in fixtures, predictions, rows'
/// summaries and reports (`calendar_events`).
///
/// An open set of names rather than an enum: a feature is a type in Extractors (`ParentFeature`), and adding one
/// must not mean editing a list here. The five that ship are named below because the scorer (Evals) cannot see
/// the extractors' types; which features exist and in what order is `FeatureRegistry`'s (and, for scoring,
/// `ScoredFeature`'s) business.
public struct ExtractionFeature: RawRepresentable, Sendable, Hashable, Codable, CodingKeyRepresentable, CustomStringConvertible {
    public let rawValue: String

    /// Any name; whether a feature of that name exists is for a registry to say.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The prompt library's id for this feature's prompt (`prompts/<id>.yaml`).
    public var promptID: String { rawValue }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let calendarEvents = ExtractionFeature("calendar_events")
    public static let decisions = ExtractionFeature("decisions")
    public static let priorityMessages = ExtractionFeature("priority_messages")
    public static let rsvps = ExtractionFeature("rsvps")
    public static let deadlines = ExtractionFeature("deadlines")
}
