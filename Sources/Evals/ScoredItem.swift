import Chrono
import Foundation

/// How one feature's items are paired and compared; the five item types conform.
///
/// Pairing needs a shared cited message (`sources`) and, for dated features, the same key date.
/// Everything else is judged per field on pairs only, so a wrong time is a field error, not a miss.
protocol ScoredItem: Codable, Sendable {
    /// For an expected item every acceptable message id; for a predicted one the ids it cites.
    var sources: [String] { get }
    /// The date that must be right for a match (nil for features matched by source alone).
    var keyDate: LocalDate? { get }
    /// Field name and whether `predicted` gets it right, with `self` as the expected item.
    func fieldResults(predicted: Self) -> [(field: String, correct: Bool)]
}

extension CalendarEventItem: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { date }
    func fieldResults(predicted p: CalendarEventItem) -> [(field: String, correct: Bool)] {
        [("time", time == p.time),
         ("location", FieldComparison.sameLocation(location, p.location)),
         ("category", category == p.category)]
    }
}

extension DecisionItem: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { nil }
    func fieldResults(predicted p: DecisionItem) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension PriorityMessageItem: ScoredItem {
    var sources: [String] { [message] }
    var keyDate: LocalDate? { nil }
    func fieldResults(predicted p: PriorityMessageItem) -> [(field: String, correct: Bool)] {
        [("priority", priority == p.priority), ("action_required", actionRequired == p.actionRequired)]
    }
}

extension RSVPItem: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { eventDate }
    func fieldResults(predicted p: RSVPItem) -> [(field: String, correct: Bool)] {
        [("status", status == p.status), ("response", response == p.response)]
    }
}

extension DeadlineItem: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { deadline }
    func fieldResults(predicted p: DeadlineItem) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

/// Field comparison rules. Null equals only null: predicting a value the label leaves out is as wrong
/// as leaving out a labelled one.
enum FieldComparison {
    /// Case-insensitive after trimming whitespace; a blank string counts as null.
    static func sameLocation(_ a: String?, _ b: String?) -> Bool {
        normalized(a) == normalized(b)
    }

    private static func normalized(_ s: String?) -> String? {
        guard let trimmed = s?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed.lowercased()
    }
}
