import Chrono
import Foundation
import YAMLKit

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
    /// The message ids a labelled item names, each with its place in the item; each must be a message of the fixture
    /// (`FixtureChecks`). By default each of `source`.
    var messageReferences: [(path: [JSONPathComponent], id: String)] { get }
    /// The participant ids it names, each with its place; each must be a participant. By default none.
    var participantReferences: [(path: [JSONPathComponent], id: String)] { get }
}

extension ScoredItem {
    var messageReferences: [(path: [JSONPathComponent], id: String)] {
        sources.enumerated().map { ([.key("source"), .index($0.offset)], $0.element) }
    }

    var participantReferences: [(path: [JSONPathComponent], id: String)] { [] }
}

extension ScoredEvent: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { date }
    func fieldResults(predicted p: ScoredEvent) -> [(field: String, correct: Bool)] {
        [("time", time == p.time),
         ("location", FieldComparison.sameLocation(location, p.location)),
         ("category", category == p.category)]
    }
}

extension ScoredDecision: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { nil }
    func fieldResults(predicted p: ScoredDecision) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension ScoredPriorityMessage: ScoredItem {
    var sources: [String] { [message] }
    var keyDate: LocalDate? { nil }
    var messageReferences: [(path: [JSONPathComponent], id: String)] { [([.key("message")], message)] }
    func fieldResults(predicted p: ScoredPriorityMessage) -> [(field: String, correct: Bool)] {
        [("priority", priority == p.priority), ("action_required", actionRequired == p.actionRequired)]
    }
}

extension ScoredRSVP: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { eventDate }
    var participantReferences: [(path: [JSONPathComponent], id: String)] { [([.key("requested_by")], requestedBy)] }
    func fieldResults(predicted p: ScoredRSVP) -> [(field: String, correct: Bool)] {
        [("status", status == p.status), ("response", response == p.response)]
    }
}

extension ScoredDeadline: ScoredItem {
    var sources: [String] { source }
    var keyDate: LocalDate? { deadline }
    func fieldResults(predicted p: ScoredDeadline) -> [(field: String, correct: Bool)] {
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
