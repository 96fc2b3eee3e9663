package import Core

/// What one conversation yielded: each feature's items (see `Extractor`), and the notes on what was dropped or
/// corrected. `events`, `decisions`, ... are the shipping features' lists; `extraction[feature]` is any feature's.
package struct Extraction: Sendable, Hashable {
    /// Only non-empty lists are kept, so an extraction equals another with the same items whatever was asked.
    private var lists: [ExtractionFeature: FeatureItems] = [:]
    package var notes: [ExtractionNote] = []
    /// What the answer said of the conversation's known items, by ref (a request that listed open items).
    package var known: [Verdict] = []
    /// How each feature's items were grounded (see `GroundingTally`); bookkeeping, not part of equality or JSON.
    package var grounding: [ExtractionFeature: GroundingTally] = [:]

    package init() {}

    package static func == (a: Extraction, b: Extraction) -> Bool { a.lists == b.lists && a.notes == b.notes && a.known == b.known }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(lists)
        hasher.combine(notes)
        hasher.combine(known)
    }

    package subscript<Feature: Extractor>(_ feature: Feature) -> [Feature.Item] {
        get { lists[feature.id]?.items as? [Feature.Item] ?? [] }
        set { lists[feature.id] = newValue.isEmpty ? nil : FeatureItems(feature: feature, items: newValue) }
    }

    package func count(_ feature: ExtractionFeature) -> Int { lists[feature]?.count ?? 0 }

    /// One report line per item of `feature` (`extract`'s report); none when it has no items. The list knows its own
    /// feature, so a report needs no registry.
    package func reportLines(_ feature: ExtractionFeature) -> [String] {
        lists[feature].map { $0.feature.reportLines(self) } ?? []
    }

    /// Each item of `feature` with its report line and its fields as JSON (`scan --json`'s `found`).
    package func reportItems(_ feature: ExtractionFeature) -> [(line: String, fields: JSONValue)] {
        lists[feature].map { $0.feature.reportItems(self) } ?? []
    }

    /// Adds another window's items, dropping any already present (overlapping windows see some messages twice).
    package mutating func merge(_ other: Extraction) {
        for list in other.lists.values { list.feature.merge(other, into: &self) }
        notes += other.notes
        grounding.merge(other.grounding, uniquingKeysWith: +)
    }
}

/// One feature's items, with the feature that knows how to merge and encode them.
private struct FeatureItems: Sendable, Hashable {
    let feature: any Extractor
    let items: any Sendable & Hashable
    let count: Int

    init<Feature: Extractor>(feature: Feature, items: [Feature.Item]) {
        self.feature = feature
        self.items = items
        self.count = items.count
    }

    static func == (a: FeatureItems, b: FeatureItems) -> Bool {
        a.feature.id == b.feature.id && AnyHashable(a.items) == AnyHashable(b.items)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(feature.id)
        hasher.combine(AnyHashable(items))
    }
}

/// `extract --json` shows every feature's list of the coder's registry (`FeatureRegistry.userInfoKey`; the shipping
/// one by default) under its `itemsKey` (empty ones too), then any other list it holds, then `notes`.
extension Extraction: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func decodeList<Feature: Extractor>(_ feature: Feature) throws {
            self[feature] = try container.decodeIfPresent([Feature.Item].self, forKey: Key(feature.itemsKey)) ?? []
        }
        for feature in FeatureRegistry.of(decoder).features { try decodeList(feature) }
        notes = try container.decodeIfPresent([ExtractionNote].self, forKey: Key("notes")) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        func encodeList<Feature: Extractor>(_ feature: Feature) throws {
            try container.encode(self[feature], forKey: Key(feature.itemsKey))
        }
        let registered = FeatureRegistry.of(encoder).features
        for feature in registered { try encodeList(feature) }
        for list in lists.values.sorted(by: { $0.feature.id.rawValue < $1.feature.id.rawValue })
        where !registered.contains(where: { $0.id == list.feature.id }) { try encodeList(list.feature) }
        try container.encode(notes, forKey: Key("notes"))
    }
}
