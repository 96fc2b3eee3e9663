import Core
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
        verdict(report, failUnder: failUnder, maxRegression: maxRegression, maxFailures: maxFailures).checks.filter { !$0.passed }.map(\.detail)
    }

    /// Every gate the run was held to, passed or failed, and the exit status it earns: what `eval` prints and what
    /// heads report.md and report.html (`EvalReport.gate`).
    package static func verdict(_ report: EvalReport, failUnder: Double?, maxRegression: Double?, maxFailures: Int = 0) -> EvalGateVerdict {
        var checks: [EvalGateCheck] = []
        let allowed = max(0, maxFailures)
        for variant in report.variants {
            let failed = variant.errors.count > allowed
            checks.append(EvalGateCheck(
                gate: "--max-failures \(allowed)", passed: !failed,
                detail: failed ? failedExtractions(variant) + " (more than --max-failures \(allowed))"
                    : "\(variant.id): \(variant.errors.count) failed extractions (at most \(allowed) allowed)"))
        }
        let micro = report.main?.score.micro.f1 ?? 0
        if let failUnder {
            checks.append(EvalGateCheck(
                gate: String(format: "--fail-under %.4f", failUnder), passed: micro >= failUnder,
                detail: String(format: micro < failUnder ? "micro F1 %.4f is below --fail-under %.4f" : "micro F1 %.4f is at least %.4f",
                               micro, failUnder)))
            if let main = report.main {
                for feature in report.features {
                    guard let score = main.score.features[feature], score.precision == nil, score.fn > 0 else { continue }
                    checks.append(EvalGateCheck(gate: String(format: "--fail-under %.4f", failUnder), passed: false,
                                                detail: "\(feature.rawValue): \(main.id) predicted nothing for \(score.fn) expected items (precision undefined)"))
                }
            }
        }
        if let maxRegression {
            let gate = String(format: "--max-regression %.4f", maxRegression)
            if let baseline = report.baseline {
                let drop = -baseline.micro.f1Delta
                let detail = String(format: "micro F1 %.4f → %.4f against the baseline", baseline.micro.baseline.f1, baseline.micro.current.f1)
                checks.append(drop > maxRegression
                    ? EvalGateCheck(gate: gate, passed: false,
                                    detail: String(format: "micro F1 dropped by %.4f (%.4f → %.4f), more than --max-regression %.4f",
                                                   drop, baseline.micro.baseline.f1, baseline.micro.current.f1, maxRegression)
                                        + " (baseline \(baseline.path))")
                    : EvalGateCheck(gate: gate, passed: true, detail: detail + " (\(baseline.path))"))
            } else {
                checks.append(EvalGateCheck(gate: gate, passed: false, detail: "--max-regression needs --baseline"))
            }
        }
        let outage = report.variants.lazy.flatMap(\.errors).first { $0.outage == true }
        let passed = checks.allSatisfy(\.passed)
        return EvalGateVerdict(passed: passed && outage == nil,
                               exitCode: outage != nil ? Int(ExitStatus.outage) : (passed ? 0 : Int(ExitStatus.someFailed)),
                               outage: outage?.message, checks: checks)
    }

    /// `llm: 25 of 25 extractions failed; first: class-picnic calendar_events: …`, the line the report's banner shows too.
    package static func failedExtractions(_ variant: EvalVariantReport) -> String {
        // A combined variant makes one extraction (request unit) per fixture, a per-feature one one per feature.
        let combined = variant.ranFeatures.count > 1 && variant.ranFeatures.allSatisfy { variant.prompts[$0]?.id == CombinedSchema.promptID }
        let total = (combined ? 1 : variant.ranFeatures.count) * max(1, variant.score.fixtures.count)
        // A combined request that failed is recorded once per feature it answers for: count it once.
        let failed = combined ? Set(variant.errors.map(\.fixture)).count : variant.errors.count
        var line = "\(variant.id): \(failed) of \(total) extractions failed"
        if let first = variant.errors.first {
            line += "; first: \(first.fixture) \(first.unit): \(first.detail.prefix(300))"
        }
        return line
    }
}

/// The gates an eval run was held to and how it came out, written at the top of report.md, report.html and in
/// report.json (`gate`) so a CI artifact says why a job failed without its log.
package struct EvalGateVerdict: Sendable, Hashable, Codable {
    package var passed: Bool
    /// What `eval` exits with: 0, 2 (a gate failed) or 75 (the model server was down: the scores mean nothing).
    package var exitCode: Int
    /// The outage's error, when the circuit breaker opened.
    package var outage: String?
    package var checks: [EvalGateCheck]

    enum CodingKeys: String, CodingKey {
        case passed, outage, checks
        case exitCode = "exit_code"
    }

    /// `FAILED (exit 2): 2 of 4 checks failed`, the reports' first line.
    var headline: String {
        if let outage { return "OUTAGE (exit \(exitCode)): the model server was unavailable, so the scores mean nothing: \(outage)" }
        let failed = checks.count { !$0.passed }
        return passed ? "PASSED: all \(checks.count) checks passed" : "FAILED (exit \(exitCode)): \(failed) of \(checks.count) checks failed"
    }
}

/// One gate of `eval` (`--fail-under`, `--max-regression`, `--max-failures`) and what it found.
package struct EvalGateCheck: Sendable, Hashable, Codable {
    package var gate: String
    package var passed: Bool
    package var detail: String
}
