/// How a run did on the nights fixtures (docs/over-nights.md, "Eval over nights"): each night is scored as a fixture
/// of its own (`Fixture.nightFixtures`); this gathers those nights back per fixture.
package struct NightsSummary: Sendable, Hashable, Codable {
    /// One night of one fixture.
    package struct Night: Sendable, Hashable, Codable {
        package var fixture: String
        /// From 1.
        package var night: Int
        package var metrics: Metrics
        /// Every item of every list found, nothing extra, every compared field right.
        package var exact: Bool
    }

    package var nights: [Night]
    /// Over every night of every nights fixture: the headline for these fixtures.
    package var micro: Metrics
    /// Over the last night of each nights fixture.
    package var lastNights: Metrics
    /// Nights shown exactly right (the joint goal accuracy of dialogue state tracking).
    package var exact: Int

    /// The share of nights shown exactly right; nil with no nights.
    package var exactShare: Double? { nights.isEmpty ? nil : Double(exact) / Double(nights.count) }

    /// Nil when no fixture of `fixtures` has nights. `features`: the scored ones. `failed`: the nights (`<id>#<n>`)
    /// whose extraction failed or was not played: scored as predicting nothing, and never exactly right, even when
    /// the night expects nothing.
    package init?(_ score: EvalScore, fixtures: [Fixture], features: [ExtractionFeature], failed: Set<String> = []) {
        let byID = Dictionary(score.fixtures.map { ($0.fixture, $0) }, uniquingKeysWith: { first, _ in first })
        var nights: [Night] = []
        var last = Metrics.zero
        for fixture in fixtures {
            guard let count = fixture.nights?.count else { continue }
            for number in 1...max(1, count) {
                let details = byID[Fixture.nightID(fixture.id, number)].map { score in features.compactMap { score.features[$0] } } ?? []
                let metrics = details.map(\.metrics).reduce(Metrics.zero, +)
                let exact = !failed.contains(Fixture.nightID(fixture.id, number)) && details.allSatisfy { detail in
                    detail.falsePositives.isEmpty && detail.falseNegatives.isEmpty
                        && detail.matched.allSatisfy { $0.fields.values.allSatisfy { $0 } }
                }
                nights.append(Night(fixture: fixture.id, night: number, metrics: metrics, exact: exact))
                if number == count { last = last + metrics }
            }
        }
        guard !nights.isEmpty else { return nil }
        self.nights = nights
        micro = nights.map(\.metrics).reduce(Metrics.zero, +)
        lastNights = last
        exact = nights.count { $0.exact }
    }

    enum CodingKeys: String, CodingKey {
        case nights, micro, exact
        case lastNights = "last_nights"
        case exactShare = "exact_share"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nights = try c.decode([Night].self, forKey: .nights)
        micro = try c.decode(Metrics.self, forKey: .micro)
        lastNights = try c.decode(Metrics.self, forKey: .lastNights)
        exact = try c.decode(Int.self, forKey: .exact)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nights, forKey: .nights)
        try c.encode(micro, forKey: .micro)
        try c.encode(lastNights, forKey: .lastNights)
        try c.encode(exact, forKey: .exact)
        try c.encode(exactShare, forKey: .exactShare)
    }
}
