package import Core
import Foundation

/// How one feature's labels are written, paired and compared: the one scoring description of a feature. Each scored
/// feature has one item type conforming to it (`Features/CalendarEvents/ScoredEvent.swift`, ...; each in
/// its feature's folder), and `ScoredFeature` erases it so that fixtures, predictions files, the scorer and the reports go through it.
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
    /// The same place when the words of one are all among the other's, case, accents, punctuation and a few short
    /// words aside ("Chiquipark de Moncloa" and "Chiquipark Moncloa", "the gym" and "School gym"): the parent sees the
    /// same place either way, as a model says it in its own words. A place in other words ("Mariana's house", "Casa de
    /// Mariana") is another answer. A blank string counts as null, and null equals only null.
    package static func sameLocation(_ a: String?, _ b: String?) -> Bool {
        let (x, y) = (words(a), words(b))
        guard let x, let y else { return x == nil && y == nil }
        return x.isSubset(of: y) || y.isSubset(of: x)
    }

    /// Articles and prepositions a place name may carry or drop, in the fixtures' languages. No single letter: "Gym A"
    /// and "Gym B" are two places.
    static let placeFillers: Set<String> = ["the", "an", "at", "of", "in", "on", "de", "del", "la", "le", "les", "el", "los",
                                            "las", "du", "des", "da", "do", "das", "dos", "der", "die", "dem", "im", "am",
                                            "zum", "zur"]

    /// Its words, lowercased and without accents, an English possessive and a French elision dropped ("Mariana's",
    /// "l'école"), fillers dropped; nil for a blank or missing value.
    private static func words(_ s: String?) -> Set<String>? {
        guard let s, !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        let folded = s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .replacingOccurrences(of: "\u{2019}", with: "'")
            .replacingOccurrences(of: "\\b[ld]'", with: "", options: .regularExpression)
            .replacingOccurrences(of: "'s\\b", with: "", options: .regularExpression)
        let all = folded.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        let kept = Set(all.filter { !placeFillers.contains($0) })
        return kept.isEmpty ? Set(all) : kept
    }
}
