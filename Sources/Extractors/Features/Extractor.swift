import Foundation
package import Core
import Postgres

/// One parent feature (calendar events, decisions, ...) in one place: its id, how the model's answer becomes
/// items, how items from overlapping windows merge, the rule-based answer, its rows and its report lines.
///
/// Everything that differs between features is a requirement here, so a new feature is one type conforming to
/// this protocol (in `Features/<Feature>/`, with the scorer's shape of its items, a Scoring `ScoredItem`, and its rules), its prompt
/// `prompts/<id>.yaml` and its schema `schemas/<id>.schema.json`, its table's migration, plus one entry in
/// `FeatureRegistry.shipping`; the compiler names any requirement left to write. The engine, the store, the batch path,
/// the reports and the eval runner only ever go through this protocol.
package protocol Extractor: Sendable {
    /// One found item, with the input's real ids (never the prompt's aliases).
    associatedtype Item: Sendable, Hashable, Codable

    /// Prompt id, schema name and eval key.
    var id: ExtractionFeature { get }
    /// The scorer's shape of an item: how a label of this feature is written, paired and compared (Scoring's
    /// `ScoredItem`, whose `feature` must be this feature's `id`).
    associatedtype Scored: ScoredItem

    /// The key of this feature's list in `Extraction`'s JSON (`extract --json`); the id unless it says otherwise.
    var itemsKey: String { get }
    /// This feature's line in the combined prompt's list of features (`- <id>: <rule>`): what to find and how, in one
    /// sentence or three. The combined prompt (`prompts/combined.yaml`) is filled from the registry's rules in order.
    var combinedRule: String { get }

    /// Turns a schema-valid answer (aliases, model dates) into items. Every item goes through the checks in
    /// `context`: cited ids exist (`sources`), the quoted evidence is in a cited message (`ground`), dates are real
    /// (`date`) and agree with their phrase (`resolve`); an item that fails is dropped or corrected with a note.
    func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [Item]

    /// The identity of an item in its conversation: overlapping windows yield it once, and it is the base of the
    /// idempotency keys of its rows, so a re-run finds the same rows.
    func mergeKey(_ item: Item) -> String

    /// Adds one window's item to those found so far. The default keeps the first item of each `mergeKey`.
    func merge(_ item: Item, into items: inout [Item])

    /// The rule-based provider's answer for one window, in this feature's schema (conservative by design).
    func rulesAnswer(_ scan: RuleScan) -> JSONValue

    /// Writes the items' rows inside the store's transaction: claim the app's own row for an item (if any) with
    /// `rows.claim`, then upsert by idempotency key with `rows.upsert` so that unchanged rows are not touched.
    func writeRows(_ items: [Item], prompt: PromptRef, to rows: inout RowWriter) async throws

    /// Removes this conversation's service rows of the feature that were not written this time (replace mode),
    /// keeping rows a user acted on. Binds: $1 the conversation id, $2 the keys written (`RowWriter.serviceRowNotIn`).
    var staleRowsSQL: String { get }

    /// One line of `extract`'s report per item.
    func reportLine(_ item: Item) -> String

    /// An item as the scorer sees it, from `user`'s point of view (an eval fixture's reference user).
    func scored(_ item: Item, user: String) -> Scored
}

extension Extractor {
    package var itemsKey: String { id.rawValue }

    package func merge(_ item: Item, into items: inout [Item]) {
        let key = mergeKey(item)
        if !items.contains(where: { mergeKey($0) == key }) { items.append(item) }
    }

    /// The array under `key` in an answer (the schema has checked it is one).
    static func list(_ answer: JSONValue, _ key: String) -> [JSONValue] { answer[key]?.arrayValue ?? [] }

    /// Decodes one validated answer into `extraction` (NUL characters removed first: Postgres rejects them).
    func decode(_ answer: JSONValue, into extraction: inout Extraction, context: inout DecodeContext) {
        extraction[self] += decodeItems(answer.withoutNULs, context: &context)
    }

    /// Adds `other`'s items of this feature to `extraction`'s, merging by `merge(_:into:)`.
    func merge(_ other: Extraction, into extraction: inout Extraction) {
        var items = extraction[self]
        for item in other[self] { merge(item, into: &items) }
        extraction[self] = items
    }

    /// `extract`'s report lines for this feature's items in `extraction`.
    package func reportLines(_ extraction: Extraction) -> [String] {
        extraction[self].map(reportLine)
    }

    /// Each item with its report line and its fields as JSON (snake_case keys, like the rows), for `scan --json`.
    package func reportItems(_ extraction: Extraction) -> [(line: String, fields: JSONValue)] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return extraction[self].map { item in
            (reportLine(item), (try? encoder.encode(item)).flatMap { try? JSONValue.parse($0) } ?? .null)
        }
    }

    /// This feature's scoring description (its `Scored` type's).
    package var scoring: ScoredFeature { ScoredFeature(Scored.self) }

    /// Sets `set`'s list of this feature to `extraction`'s items as the scorer sees them from `user`'s point of view.
    package func scored(_ extraction: Extraction, user: String, into set: inout ExtractionSet) {
        set[Scored.self] = extraction[self].map { scored($0, user: user) }
    }

    func write(_ extraction: Extraction, prompt: PromptRef, to rows: inout RowWriter) async throws {
        try await writeRows(extraction[self], prompt: prompt, to: &rows)
    }
}
