/// The five parent features. Raw values are the prompt ids, schema names and eval feature names.
public enum ExtractionFeature: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case calendarEvents = "calendar_events"
    case decisions
    case priorityMessages = "priority_messages"
    case rsvps
    case deadlines

    public var promptID: String { rawValue }

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Parses a comma-separated list ("calendar_events,rsvps"), naming any unknown feature.
    public static func parseList(_ text: String) throws -> [ExtractionFeature] {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var result: [ExtractionFeature] = []
        for name in names {
            guard let feature = ExtractionFeature(rawValue: name) else {
                throw ExtractionError.invalidInput(
                    "unknown feature '\(name)' (known: \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if !result.contains(feature) { result.append(feature) }
        }
        return result.sorted()
    }
}
