import Foundation

/// The features an engine, a store or a report knows, in the order they run, are written and are reported.
/// `shipping` is the one list of the features that ship; a test (or a later feature) extends a copy.
package struct FeatureRegistry: Sendable {
    package let features: [any Extractor]

    package init(_ features: [any Extractor]) {
        self.features = features
    }

    /// The parent features that ship (the PRD's five); the one place a feature is registered.
    package static let shipping = FeatureRegistry([CalendarEvents(), Decisions(), PriorityMessages(), RSVPs(), Deadlines()])

    package var ids: [ExtractionFeature] { features.map(\.id) }

    /// Each feature's scoring description, in registry order: what fixtures label and `eval` scores.
    package var scoring: ScoringRegistry { ScoringRegistry(features.map(\.scoring)) }

    /// `extraction`'s items of every feature, as the scorer sees them from `user`'s point of view.
    package func scored(_ extraction: Extraction, user: String) -> ExtractionSet {
        var set = ExtractionSet()
        for feature in features { feature.scored(extraction, user: user, into: &set) }
        return set
    }

    /// The key under which a coder's `userInfo` carries the registry an `Extraction` is read and written with.
    static let userInfoKey = CodingUserInfoKey(rawValue: "messageai.features")!

    /// The registry a coder carries, or the shipping one.
    static func of(_ decoder: any Decoder) -> FeatureRegistry { decoder.userInfo[userInfoKey] as? FeatureRegistry ?? .shipping }

    static func of(_ encoder: any Encoder) -> FeatureRegistry { encoder.userInfo[userInfoKey] as? FeatureRegistry ?? .shipping }

    /// A registry with one more feature (after the others).
    package func adding(_ feature: any Extractor) -> FeatureRegistry {
        FeatureRegistry(features.filter { $0.id != feature.id } + [feature])
    }

    package func feature(_ id: ExtractionFeature) -> (any Extractor)? {
        features.first { $0.id == id }
    }

    /// The feature of `id`, or an error naming the known ones.
    package func require(_ id: ExtractionFeature) throws -> any Extractor {
        guard let feature = feature(id) else { throw ExtractionError.invalidInput(unknown(id.rawValue)) }
        return feature
    }

    /// `ids` without repeats, in registry order (features not registered last, by name).
    package func sorted(_ ids: some Sequence<ExtractionFeature>) -> [ExtractionFeature] {
        let order = Dictionary(uniqueKeysWithValues: self.ids.enumerated().map { ($1, $0) })
        return Array(Set(ids)).sorted { (order[$0] ?? Int.max, $0.rawValue) < (order[$1] ?? Int.max, $1.rawValue) }
    }

    /// Parses a comma-separated list ("calendar_events,rsvps"), naming any unknown feature.
    package func parseList(_ text: String) throws -> [ExtractionFeature] {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var result: [ExtractionFeature] = []
        for name in names {
            guard let feature = features.first(where: { $0.id.rawValue == name }) else {
                throw ExtractionError.invalidInput(unknown(name))
            }
            result.append(feature.id)
        }
        return sorted(result)
    }

    private func unknown(_ name: String) -> String {
        "unknown feature '\(name)' (known: \(ids.map(\.rawValue).joined(separator: ", ")))"
    }
}

/// The shipping registry's names, for the outermost layer only (the commands' option parsing and defaults); services
/// and stores take a `FeatureRegistry` (usually their engine's) instead.
extension ExtractionFeature {
    /// The parent features that ship, in order.
    package static var allCases: [ExtractionFeature] { FeatureRegistry.shipping.ids }

    /// A shipping feature by name, or nil.
    package static func named(_ name: String) -> ExtractionFeature? {
        FeatureRegistry.shipping.feature(ExtractionFeature(name))?.id
    }

    /// Parses a comma-separated list of shipping features (see `FeatureRegistry.parseList`).
    package static func parseList(_ text: String) throws -> [ExtractionFeature] {
        try FeatureRegistry.shipping.parseList(text)
    }
}
