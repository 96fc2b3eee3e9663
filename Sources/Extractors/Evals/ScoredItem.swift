package import Core
import Foundation

/// How one feature's labels are written, paired and compared: the one scoring description of a feature. Each scored
/// feature has one item type conforming to it (`Features/ScoredEvent.swift`, ...; a feature outside Evals declares its
/// own), and `ScoredFeature` erases it so that fixtures, predictions files, the scorer and the reports go through it.
///
/// Pairing needs a shared cited message (`sources`) and, for dated features, the same key date.
/// Everything else is judged per field on pairs only, so a wrong time is a field error, not a miss.
package protocol ScoredItem: Codable, Sendable, Hashable {
    /// The feature whose labels these are: the item's list is `expected.<feature>` in a fixture.
    static var feature: ExtractionFeature { get }
    /// The JSON Schema of one labelled item, as it sits under `$defs/<feature>` in `schemas/eval-fixture.schema.json`
    /// (it may refer to the shared `#/$defs/id`, `date`, `time`, `instant` and `source`).
    static var labelSchema: JSONValue { get }
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
    package var messageReferences: [(path: [JSONPathComponent], id: String)] {
        sources.enumerated().map { ([.key("source"), .index($0.offset)], $0.element) }
    }

    package var participantReferences: [(path: [JSONPathComponent], id: String)] { [] }
}

/// Field comparison rules. Null equals only null: predicting a value the label leaves out is as wrong
/// as leaving out a labelled one.
package enum FieldComparison {
    /// Case-insensitive after trimming whitespace; a blank string counts as null.
    package static func sameLocation(_ a: String?, _ b: String?) -> Bool {
        normalized(a) == normalized(b)
    }

    private static func normalized(_ s: String?) -> String? {
        guard let trimmed = s?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed.lowercased()
    }
}
