import Evals
import Extractors
import Foundation
import JobsEval
import JobsKit
import Testing
import TestSupport

/// The rule-based provider is the offline default: on evals/fixtures its decisions and priority messages must keep
/// micro F1 ≥ 0.70 with precision ≥ 0.75 (issue 17), and every item it returns must pass the evidence check.
@Suite struct RulesEvalFloorTests {
    @Test func decisionsAndPriorityMessagesStayAboveTheFloor() async throws {
        let oracles = try OracleFixture.loadDirectory(OracleEvalTests.fixtures)
        let fixtures = oracles.map(\.fixture)
        let engine = try ExtractionEngine(prompts: try ExtractionHarness.prompts(), provider: RulesAnswerProvider())
        let spec = EvalVariantSpec(id: "rules", role: .main, label: "rules", engine: engine, features: ExtractionFeature.allCases)
        let outcome = await EvalRunner(concurrency: 2).run(spec, fixtures: fixtures)
        #expect(outcome.errors.isEmpty, "\(outcome.errors.prefix(3))")
        let score = Scorer.score(fixtures: fixtures, predictions: outcome.predictions)
        for feature in [ExtractionFeature.decisions, .priorityMessages] {
            let m = try #require(score.features[feature]?.metrics)
            #expect(m.f1 >= 0.70 && (m.precision ?? 0) >= 0.75, "\(feature.rawValue): P \(String(describing: m.precision)) F1 \(m.f1)")
        }
        let grounding = outcome.grounding.filter { $0.value.recited > 0 || $0.value.dropped > 0 }
        #expect(grounding.isEmpty, "the rules quote evidence from the message they cite: \(grounding)")
    }
}
