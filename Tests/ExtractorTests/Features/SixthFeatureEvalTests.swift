import Evals
@testable import Extractors
import Foundation
import JobsEval
import JobsKit
import Testing
import TestSupport

/// The sixth feature of `SixthFeatureTests` through the oracle and the eval runner: the oracle has no labels for it
/// and answers the empty list, and the scorer scores the five it has labels for exactly as before.
@Suite struct SixthFeatureEvalTests {
    @Test func theOracleAndTheEvalRunnerTakeASixthFeature() async throws {
        let oracles = Array(try OracleFixture.loadDirectory(OracleEvalTests.fixtures).prefix(6))
        let provider = OracleAnswerProvider(fixtures: oracles)
        let six = try ExtractionEngine(prompts: try SixthFeatureTests.prompts(), provider: provider, registry: SixthFeatureTests.registry)
        let five = try ExtractionEngine(prompts: try SixthFeatureTests.prompts(), provider: provider)

        // The oracle has no labels for carpools: it answers the empty list, and the five features are as before.
        let fixture = try #require(oracles.first).fixture
        let withSix = try await six.extract(try FixtureConversation.input(fixture), features: SixthFeatureTests.registry.ids)
        let withFive = try await five.extract(try FixtureConversation.input(fixture), features: ExtractionFeature.allCases)
        #expect(withSix.extraction[SixthFeatureTests.carpools].isEmpty)
        #expect(withSix.prompts[SixthFeatureTests.carpools.id]?.id == "carpools")
        var fiveOfSix = withSix.extraction
        fiveOfSix[SixthFeatureTests.carpools] = []
        #expect(fiveOfSix == withFive.extraction)

        // The eval runner runs all six; the scorer scores the features it has labels for, exactly as before.
        let fixtures = oracles.map(\.fixture)
        let sixOutcome = await EvalRunner(concurrency: 2).run(
            EvalVariantSpec(id: "six", role: .main, label: "six", engine: six, features: SixthFeatureTests.registry.ids), fixtures: fixtures)
        let fiveOutcome = await EvalRunner(concurrency: 2).run(
            EvalVariantSpec(id: "five", role: .main, label: "five", engine: five, features: ExtractionFeature.allCases), fixtures: fixtures)
        #expect(sixOutcome.errors.isEmpty, "\(sixOutcome.errors)")
        let score = Scorer.score(fixtures: fixtures, predictions: sixOutcome.predictions)
        #expect(score == Scorer.score(fixtures: fixtures, predictions: fiveOutcome.predictions))
        #expect(score.micro.tp > 0 && score.micro.fp == 0 && score.micro.fn == 0, "the perfect oracle: \(score.micro)")
    }
}
