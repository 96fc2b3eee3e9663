package import Extractors
import Foundation

/// The main variant of this run against the main variant of an earlier `report.json`.
package struct BaselineComparison: Sendable, Codable {
    package var path: String
    /// Per scored feature; features the baseline did not score are left out.
    package var features: [ExtractionFeature: FeatureDelta]
    package var micro: FeatureDelta
    /// Fixtures whose F1 or true-positive count dropped, worst F1 drop first.
    package var regressions: [FixtureRegression]
    /// Fixtures of this run missing from the baseline (not compared).
    package var newFixtures: [String]

    package init(path: String, features: [ExtractionFeature: FeatureDelta], micro: FeatureDelta, regressions: [FixtureRegression], newFixtures: [String]) {
        self.path = path
        self.features = features
        self.micro = micro
        self.regressions = regressions
        self.newFixtures = newFixtures
    }

    /// Compares the main variants. Throws when either report has none.
    package static func compare(current: EvalReport, baseline: EvalReport, baselinePath: String) throws -> BaselineComparison {
        guard let now = current.main else { throw EvalRunError("this run has no main variant to compare") }
        guard let then = baseline.main else { throw EvalRunError("\(baselinePath): the baseline report has no main variant") }
        var features: [ExtractionFeature: FeatureDelta] = [:]
        for feature in current.features where baseline.features.contains(feature) {
            guard let a = then.score.features[feature], let b = now.score.features[feature] else { continue }
            features[feature] = FeatureDelta(baseline: a.metrics, current: b.metrics)
        }
        // Micro over the features both runs scored, so adding a feature is not mistaken for a change.
        let shared = current.features.filter { baseline.features.contains($0) }
        func micro(_ score: EvalScore) -> Metrics {
            shared.compactMap { score.features[$0]?.metrics }.reduce(Metrics.zero, +)
        }
        let microDelta = FeatureDelta(baseline: micro(then.score), current: micro(now.score))

        let old = Dictionary(then.score.fixtures.map { ($0.fixture, $0) }, uniquingKeysWith: { first, _ in first })
        var regressions: [FixtureRegression] = []
        var newFixtures: [String] = []
        for fixture in now.score.fixtures {
            guard let before = old[fixture.fixture] else {
                newFixtures.append(fixture.fixture)
                continue
            }
            let a = fixtureMetrics(before, shared)
            let b = fixtureMetrics(fixture, shared)
            guard b.f1 < a.f1 || b.tp < a.tp else { continue }
            let worse = shared.filter { feature in
                guard let x = before.features[feature]?.metrics, let y = fixture.features[feature]?.metrics else { return false }
                return y.f1 < x.f1 || y.tp < x.tp
            }
            regressions.append(FixtureRegression(fixture: fixture.fixture, baseline: a, current: b, features: worse))
        }
        regressions.sort { ($0.current.f1 - $0.baseline.f1, $0.fixture) < ($1.current.f1 - $1.baseline.f1, $1.fixture) }
        return BaselineComparison(path: baselinePath, features: features, micro: microDelta, regressions: regressions, newFixtures: newFixtures)
    }

    static func fixtureMetrics(_ score: FixtureScore, _ features: [ExtractionFeature]) -> Metrics {
        features.compactMap { score.features[$0]?.metrics }.reduce(Metrics.zero, +)
    }

    enum CodingKeys: String, CodingKey {
        case path, features, micro, regressions
        case newFixtures = "new_fixtures"
    }
}

/// Rates before and after; deltas are current minus baseline.
package struct FeatureDelta: Sendable, Hashable, Codable {
    package var baseline: Metrics
    package var current: Metrics

    package init(baseline: Metrics, current: Metrics) {
        self.baseline = baseline
        self.current = current
    }

    /// Nil when either side predicted nothing: an undefined precision is not compared against a number.
    package var precisionDelta: Double? {
        guard let now = current.precision, let then = baseline.precision else { return nil }
        return now - then
    }
    package var recallDelta: Double { current.recall - baseline.recall }
    package var f1Delta: Double { current.f1 - baseline.f1 }

    enum CodingKeys: String, CodingKey {
        case baseline, current
        case precisionDelta = "precision_delta"
        case recallDelta = "recall_delta"
        case f1Delta = "f1_delta"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        baseline = try c.decode(Metrics.self, forKey: .baseline)
        current = try c.decode(Metrics.self, forKey: .current)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(baseline, forKey: .baseline)
        try c.encode(current, forKey: .current)
        try c.encode(precisionDelta, forKey: .precisionDelta)
        try c.encode(recallDelta, forKey: .recallDelta)
        try c.encode(f1Delta, forKey: .f1Delta)
    }
}

/// One fixture that got worse; `features` are those whose F1 or true positives dropped.
package struct FixtureRegression: Sendable, Hashable, Codable {
    package var fixture: String
    package var baseline: Metrics
    package var current: Metrics
    package var features: [ExtractionFeature]

    package init(fixture: String, baseline: Metrics, current: Metrics, features: [ExtractionFeature]) {
        self.fixture = fixture
        self.baseline = baseline
        self.current = current
        self.features = features
    }
}

/// The checks that turn a run into a pass or a failure for CI.
package enum EvalGates {
    /// One line per failed gate; empty when the run passes.
    /// - Parameters:
    ///   - failUnder: the main variant's micro F1 must be at least this, and its precision defined (it predicted
    ///     something) wherever items were expected.
    ///   - maxRegression: micro F1 may drop at most this much below the baseline's (needs `report.baseline`).
    ///   - maxFailures: failed extractions allowed per variant. A failed extraction counts as predicting nothing, so
    ///     without this gate a dead model or a wrong key could still pass.
    package static func failures(_ report: EvalReport, failUnder: Double?, maxRegression: Double?, maxFailures: Int = 0) -> [String] {
        var failures: [String] = []
        for variant in report.variants where variant.errors.count > max(0, maxFailures) {
            failures.append(failedExtractions(variant) + " (more than --max-failures \(max(0, maxFailures)))")
        }
        let micro = report.main?.score.micro.f1 ?? 0
        if let failUnder, micro < failUnder {
            failures.append(String(format: "micro F1 %.4f is below --fail-under %.4f", micro, failUnder))
        }
        if failUnder != nil, let main = report.main {
            for feature in report.features {
                guard let score = main.score.features[feature], score.precision == nil, score.fn > 0 else { continue }
                failures.append("\(feature.rawValue): \(main.id) predicted nothing for \(score.fn) expected items (precision undefined)")
            }
        }
        if let maxRegression {
            if let baseline = report.baseline {
                let drop = -baseline.micro.f1Delta
                if drop > maxRegression {
                    failures.append(String(format: "micro F1 dropped by %.4f (%.4f → %.4f), more than --max-regression %.4f",
                                           drop, baseline.micro.baseline.f1, baseline.micro.current.f1, maxRegression)
                                    + " (baseline \(baseline.path))")
                }
            } else {
                failures.append("--max-regression needs --baseline")
            }
        }
        return failures
    }

    /// `llm: 25 of 25 extractions failed; first: class-picnic calendar_events: …`, the line the report's banner shows too.
    package static func failedExtractions(_ variant: EvalVariantReport) -> String {
        let total = variant.ranFeatures.count * max(1, variant.score.fixtures.count)
        var line = "\(variant.id): \(variant.errors.count) of \(total) extractions failed"
        if let first = variant.errors.first {
            line += "; first: \(first.fixture) \(first.feature.rawValue): \(first.detail.prefix(300))"
        }
        return line
    }
}
