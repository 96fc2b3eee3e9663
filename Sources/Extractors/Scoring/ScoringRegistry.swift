package import Foundation
import Core

/// The features fixtures label and the scorer scores, in report order, with the fixture schema that accepts their
/// lists. A feature registry gives its own (`FeatureRegistry.scoring`), so a sixth feature is scored by registering it;
/// `shipping` is the shipping registry's.
package struct ScoringRegistry: Sendable {
    package let features: [ScoredFeature]
    /// The fixture schema for these features (`FixtureSchema.schema(for:)`); nil only if it does not compile.
    let fixtureSchema: JSONSchema?
    /// The nights fixture schema for these features (`FixtureSchema.nightsSchema(for:)`); nil only if it does not compile.
    let nightsSchema: JSONSchema?

    package init(_ features: [ScoredFeature]) {
        var seen = Set<ExtractionFeature>()
        self.features = features.filter { seen.insert($0.id).inserted }
        fixtureSchema = try? JSONSchema(FixtureSchema.schema(for: self.features))
        nightsSchema = try? JSONSchema(FixtureSchema.nightsSchema(for: self.features))
    }

    /// The shipping features' (`FeatureRegistry.shipping.scoring`), built once.
    package static let shipping = FeatureRegistry.shipping.scoring

    package var ids: [ExtractionFeature] { features.map(\.id) }

    /// The scored feature of that id, or nil.
    package func named(_ id: ExtractionFeature) -> ScoredFeature? {
        features.first { $0.id == id }
    }

    /// `ids` without repeats, in registry order (features not registered last, by name).
    package func sorted(_ ids: some Sequence<ExtractionFeature>) -> [ExtractionFeature] {
        let order = Dictionary(uniqueKeysWithValues: self.ids.enumerated().map { ($1, $0) })
        return Array(Set(ids)).sorted { (order[$0] ?? Int.max, $0.rawValue) < (order[$1] ?? Int.max, $1.rawValue) }
    }

    /// A decoder that reads `expected` blocks with these features' lists.
    package func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.userInfoKey] = self
        return decoder
    }

    static let userInfoKey = CodingUserInfoKey(rawValue: "messageai.scoring")!

    /// The registry a coder carries, or the shipping one.
    static func of(_ decoder: any Decoder) -> ScoringRegistry { decoder.userInfo[userInfoKey] as? ScoringRegistry ?? .shipping }

    static func of(_ encoder: any Encoder) -> ScoringRegistry { encoder.userInfo[userInfoKey] as? ScoringRegistry ?? .shipping }
}
