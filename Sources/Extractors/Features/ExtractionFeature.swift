/// The id of one parent feature: its prompt id, its schema's name, and its key in fixtures, predictions, rows'
/// summaries and reports (`calendar_events`).
///
/// An open set of names rather than an enum: a feature is a type in Extractors (`Extractor`), and adding one
/// must not mean editing a list here. The five that ship are named below because the scorer (Scoring/) does not go
/// through the extractors' types; which features exist and in what order is `FeatureRegistry`'s (and, for scoring,
/// `ScoredFeature`'s) business.
package struct ExtractionFeature: RawRepresentable, Sendable, Hashable, Codable, CodingKeyRepresentable, CustomStringConvertible {
    package let rawValue: String

    /// Any name; whether a feature of that name exists is for a registry to say.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The prompt library's id for this feature's prompt (`prompts/<id>.yaml`).
    package var promptID: String { rawValue }

    package var description: String { rawValue }

    package init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    package static let calendarEvents = ExtractionFeature("calendar_events")
    package static let decisions = ExtractionFeature("decisions")
    package static let priorityMessages = ExtractionFeature("priority_messages")
    package static let rsvps = ExtractionFeature("rsvps")
    package static let deadlines = ExtractionFeature("deadlines")
}
