import Foundation
import Core

/// Every scored list of one chat, keyed by feature: a fixture's `expected` block, or what an extractor predicted for it.
///
/// One type for both sides so the eval runner can hand extractor output to the scorer unchanged. A list is read and
/// written through its item type (`set[ScoredEvent.self]`, or `set.calendarEvents` beside each item type); a feature
/// with no items holds no list, so two sets with the same items are equal whatever was asked.
package struct ExtractionSet: Sendable, Hashable {
    private var lists: [ExtractionFeature: ScoredList]

    /// A set holding the lists given (`ExtractionSet(events, deadlines)`), or nothing.
    package init<each Item: ScoredItem>(_ lists: repeat [each Item]) {
        self.lists = [:]
        repeat put(each lists)
    }

    private mutating func put<Item: ScoredItem>(_ items: [Item]) { self[Item.self] = items }

    /// The items of `Item`'s feature (empty when there are none).
    package subscript<Item: ScoredItem>(_ type: Item.Type) -> [Item] {
        get { lists[Item.feature]?.items as? [Item] ?? [] }
        set { lists[Item.feature] = newValue.isEmpty ? nil : ScoredList(newValue) }
    }

    /// Nothing in any list: a chat with nothing to extract.
    package var isEmpty: Bool { lists.isEmpty }

    /// How many items of `feature` (0 for a feature with none, or one that is not scored).
    package func count(of feature: ExtractionFeature) -> Int { lists[feature]?.count ?? 0 }

    /// The features that hold items.
    package var features: Set<ExtractionFeature> { Set(lists.keys) }

    /// Replaces `feature`'s list with `other`'s (emptied when `other` has none).
    package mutating func copy(_ feature: ExtractionFeature, from other: ExtractionSet) {
        lists[feature] = other.lists[feature]
    }

    /// `feature`'s items as a JSON array (empty when there are none).
    func json(_ feature: ExtractionFeature) -> JSONValue { lists[feature]?.json ?? .array([]) }
}

/// One feature's items, type-erased, with what equality, hashing and encoding need.
private struct ScoredList: Sendable, Hashable {
    let items: any Sendable & Hashable
    let count: Int
    private let encode: @Sendable () -> JSONValue

    init<Item: ScoredItem>(_ items: [Item]) {
        self.items = items
        self.count = items.count
        self.encode = { (try? JSONValue.encode(items)) ?? .array([]) }
    }

    /// The items as a JSON array, each in its fixture shape.
    var json: JSONValue { encode() }

    static func == (a: ScoredList, b: ScoredList) -> Bool { AnyHashable(a.items) == AnyHashable(b.items) }

    func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(items)) }
}

/// A fixture's `expected` block: one list per feature of the decoder's `ScoringRegistry` (`userInfo`, the shipping one
/// by default). A missing list decodes as empty (a prediction may omit a feature; for a fixture the loader records it
/// as `Fixture.unlabelled`); encoded, every feature of the registry is written, empty lists too.
extension ExtractionSet: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ScoredListKey.self)
        self.init()
        for feature in ScoringRegistry.of(decoder).features { try feature.decodeList(container, &self) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ScoredListKey.self)
        let registry = ScoringRegistry.of(encoder)
        for feature in registry.ids { try container.encode(json(feature), forKey: ScoredListKey(feature)) }
        for feature in features.subtracting(registry.ids).sorted(by: { $0.rawValue < $1.rawValue }) {
            try container.encode(json(feature), forKey: ScoredListKey(feature))
        }
    }
}

/// A feature's key in an `expected` block.
struct ScoredListKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ feature: ExtractionFeature) { stringValue = feature.rawValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// What an extractor predicted for one fixture, shaped like the fixture's `expected` block.
package typealias PredictedItems = ExtractionSet
