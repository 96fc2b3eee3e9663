import Evals
import Extractors
import Foundation
import JobsEval
import JobsKit
import Testing
import TestSupport

/// The pipeline measured with a model that knows the labels (issue 17): perfect answers must keep everything, and
/// each realistic mistake (a neighbour's id, a date off by one, a paraphrased phrase, a phrase that keeps its
/// clock time) must cost at most 5% of micro F1 over evals/fixtures.
@Suite struct OracleEvalTests {
    static let fixtures = ExtractionHarness.repositoryRoot.appendingPathComponent("evals/fixtures").path

    static func run(_ noise: OracleNoise) async throws -> (score: EvalScore, outcome: EvalVariantOutcome) {
        let oracles = try OracleFixture.loadDirectory(fixtures)
        let engine = try ExtractionEngine(prompts: try ExtractionHarness.prompts(), provider: OracleAnswerProvider(fixtures: oracles, noise: noise))
        let spec = EvalVariantSpec(id: "oracle-\(noise.rawValue)", role: .main, label: "oracle", engine: engine, features: ExtractionFeature.allCases)
        let outcome = await EvalRunner(concurrency: 2).run(spec, fixtures: oracles.map(\.fixture))
        return (Scorer.score(fixtures: oracles.map(\.fixture), predictions: outcome.predictions), outcome)
    }

    @Test(arguments: OracleNoise.allCases)
    func microF1StaysHigh(_ noise: OracleNoise) async throws {
        let (score, outcome) = try await Self.run(noise)
        #expect(outcome.errors.isEmpty, "\(outcome.errors.prefix(3))")
        let perFeature = ExtractionFeature.allCases.map { feature in
            let m = score.features[feature]?.metrics
            let g = outcome.grounding[feature] ?? GroundingCounts()
            return "\(feature.rawValue) F1 \(String(format: "%.3f", m?.f1 ?? 0)) (re-cited \(g.recited), dropped \(g.dropped), kept \(g.datesUnconfirmed))"
        }.joined(separator: "; ")
        print("oracle \(noise.rawValue): micro P \(score.micro.precision.map { String(format: "%.3f", $0) } ?? "—") R \(String(format: "%.3f", score.micro.recall)) "
              + "F1 \(String(format: "%.3f", score.micro.f1)); \(perFeature)")
        for fixture in score.fixtures {
            for (feature, detail) in fixture.features where !detail.falseNegatives.isEmpty || !detail.falsePositives.isEmpty {
                print("oracle \(noise.rawValue) missed: \(fixture.fixture) \(feature.rawValue) FN \(detail.falseNegatives.map(\.expected)) FP \(detail.falsePositives.map(\.predicted))")
            }
        }
        if noise == .perfect {
            #expect(score.micro.f1 == 1.0)
            let corrected = outcome.grounding.filter { !$0.value.isZero }
            #expect(corrected.isEmpty, "perfect answers need no correction: \(corrected)")
        } else {
            #expect(score.micro.f1 >= 0.95, "oracle \(noise.rawValue): micro F1 \(score.micro.f1)")
        }
    }

    /// The `ids` noise is only recovered by the evidence check: every moved single-source item is re-cited.
    @Test func movedIdsAreReCitedByTheirEvidence() async throws {
        let (_, outcome) = try await Self.run(.ids)
        let recited = outcome.grounding.values.map(\.recited).reduce(0, +)
        #expect(recited > 20, "only \(recited) items re-cited")
    }
}
