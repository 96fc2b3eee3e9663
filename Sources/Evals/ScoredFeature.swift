import FeatureKit
import JSONKit
import YAMLKit

/// What the scorer knows of one feature: where its items are in an `ExtractionSet`. This table is the one place
/// in Evals that lists the features (the extractors' own types live in Extractors, which Evals cannot see);
/// scoring, predictions files and reports go through it.
public struct ScoredFeature: Sendable {
    public let id: ExtractionFeature
    private let countIn: @Sendable (ExtractionSet) -> Int
    private let sourcesIn: @Sendable (ExtractionSet) -> [[String]]
    private let encodeIn: @Sendable (ExtractionSet) -> JSONValue
    private let decodeInto: @Sendable (JSONValue, inout ExtractionSet) throws -> Void
    private let copyInto: @Sendable (ExtractionSet, inout ExtractionSet) -> Void
    private let scoreIn: @Sendable (_ expected: ExtractionSet, _ predicted: ExtractionSet) -> FeatureDetail
    private let referencesIn: @Sendable (ExtractionSet) -> [References]

    /// What one labelled item names: message ids and participant ids, each with its place in the item.
    struct References: Sendable {
        let messages: [(path: [JSONPathComponent], id: String)]
        let participants: [(path: [JSONPathComponent], id: String)]
    }

    init<Item: ScoredItem>(_ id: ExtractionFeature, _ list: WritableKeyPath<ExtractionSet, [Item]> & Sendable) {
        self.id = id
        countIn = { $0[keyPath: list].count }
        sourcesIn = { $0[keyPath: list].map(\.sources) }
        encodeIn = { (try? JSONValue.encode($0[keyPath: list])) ?? .array([]) }
        decodeInto = { items, set in set[keyPath: list] = try items.decode([Item].self) }
        copyInto = { other, set in set[keyPath: list] = other[keyPath: list] }
        scoreIn = { expected, predicted in Scorer.scoreFeature(expected: expected[keyPath: list], predicted: predicted[keyPath: list]) }
        referencesIn = { $0[keyPath: list].map { References(messages: $0.messageReferences, participants: $0.participantReferences) } }
    }

    /// The scored features, in report order.
    public static let all: [ScoredFeature] = [
        ScoredFeature(.calendarEvents, \.calendarEvents),
        ScoredFeature(.decisions, \.decisions),
        ScoredFeature(.priorityMessages, \.priorityMessages),
        ScoredFeature(.rsvps, \.rsvps),
        ScoredFeature(.deadlines, \.deadlines),
    ]

    public static var ids: [ExtractionFeature] { all.map(\.id) }

    /// The scored feature of that id, or nil.
    public static func named(_ id: ExtractionFeature) -> ScoredFeature? {
        all.first { $0.id == id }
    }

    public func count(in set: ExtractionSet) -> Int { countIn(set) }

    /// Each item's acceptable (expected) or cited (predicted) message ids.
    public func sources(in set: ExtractionSet) -> [[String]] { sourcesIn(set) }

    /// The items as a JSON array (the predictions file's `items`).
    public func encode(in set: ExtractionSet) -> JSONValue { encodeIn(set) }

    /// Replaces `set`'s list with `items` decoded.
    public func decode(_ items: JSONValue, into set: inout ExtractionSet) throws { try decodeInto(items, &set) }

    /// Replaces `set`'s list with `other`'s.
    public func copy(from other: ExtractionSet, into set: inout ExtractionSet) { copyInto(other, &set) }

    func score(expected: ExtractionSet, predicted: ExtractionSet) -> FeatureDetail { scoreIn(expected, predicted) }

    /// Each item's references, in order (the fixture checks).
    func references(in set: ExtractionSet) -> [References] { referencesIn(set) }
}
