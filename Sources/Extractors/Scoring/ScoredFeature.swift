package import Core

/// One feature's scoring description with its item type erased: where its items are in an `ExtractionSet`, how they
/// are decoded, paired and compared, and which ids they name. Built from the feature's `ScoredItem` type, so what a
/// feature declares there is all the scorer, the fixture checks, predictions files and the reports know of it.
package struct ScoredFeature: Sendable {
    package let id: ExtractionFeature
    /// The schema of one labelled item (`ScoredItem.labelSchema`).
    package let labelSchema: JSONValue
    private let sourcesIn: @Sendable (ExtractionSet) -> [[String]]
    private let decodeInto: @Sendable (JSONValue, inout ExtractionSet) throws -> Void
    let decodeList: @Sendable (KeyedDecodingContainer<ScoredListKey>, inout ExtractionSet) throws -> Void
    private let scoreIn: @Sendable (_ expected: ExtractionSet, _ predicted: ExtractionSet) -> FeatureDetail
    private let referencesIn: @Sendable (ExtractionSet) -> [References]

    /// What one labelled item names: message ids and participant ids, each with its place in the item.
    struct References: Sendable {
        let messages: [(path: [JSONPathComponent], id: String)]
        let participants: [(path: [JSONPathComponent], id: String)]
    }

    package init<Item: ScoredItem>(_ type: Item.Type) {
        id = Item.feature
        labelSchema = Item.labelSchema
        sourcesIn = { $0[Item.self].map(\.sources) }
        decodeInto = { items, set in set[Item.self] = try items.decode([Item].self) }
        decodeList = { container, set in
            set[Item.self] = try container.decodeIfPresent([Item].self, forKey: ScoredListKey(Item.feature)) ?? []
        }
        scoreIn = { expected, predicted in Scorer.scoreFeature(expected: expected[Item.self], predicted: predicted[Item.self]) }
        referencesIn = { $0[Item.self].map { References(messages: $0.messageReferences, participants: $0.participantReferences) } }
    }

    package func count(in set: ExtractionSet) -> Int { set.count(of: id) }

    /// Each item's acceptable (expected) or cited (predicted) message ids.
    package func sources(in set: ExtractionSet) -> [[String]] { sourcesIn(set) }

    /// The items as a JSON array (the predictions file's `items`).
    package func encode(in set: ExtractionSet) -> JSONValue { set.json(id) }

    /// Replaces `set`'s list with `items` decoded.
    package func decode(_ items: JSONValue, into set: inout ExtractionSet) throws { try decodeInto(items, &set) }

    /// Replaces `set`'s list with `other`'s.
    package func copy(from other: ExtractionSet, into set: inout ExtractionSet) { set.copy(id, from: other) }

    func score(expected: ExtractionSet, predicted: ExtractionSet) -> FeatureDetail { scoreIn(expected, predicted) }

    /// Each item's references, in order (the fixture checks).
    func references(in set: ExtractionSet) -> [References] { referencesIn(set) }
}
