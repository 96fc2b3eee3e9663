import Core
@testable import Extractors
import Foundation
import JobsKit
import Testing
import TestSupport
import Evaluation

/// The sixth feature of `SixthFeatureTests` through the oracle, the eval runner and the scorer: its labels load from a
/// fixture once it is registered (`FeatureRegistry.scoring`), its predictions are mapped by its own `scored`, and it is
/// scored beside the five, which score exactly as before.
@Suite struct SixthFeatureEvalTests {
    static let carpools = SixthFeatureTests.carpools.id
    static let scoring = SixthFeatureTests.registry.scoring

    /// The sixth feature's labelled fixtures (Resources/SixthFeature/fixtures).
    static func fixturesPath() throws -> String {
        try SixthFeatureTests.resources().appendingPathComponent("fixtures").path
    }

    static func fixture() throws -> Fixture {
        try #require(try FixtureLoader.load(path: fixturesPath(), scoring: scoring).first)
    }

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

        // The eval runner runs all six; the five score exactly as before, and carpools (labelled empty) is correct silence.
        let fixtures = oracles.map(\.fixture)
        let sixOutcome = await EvalRunner(concurrency: 2).run(
            EvalVariantSpec(id: "six", role: .main, label: "six", engine: six, features: SixthFeatureTests.registry.ids), fixtures: fixtures)
        let fiveOutcome = await EvalRunner(concurrency: 2).run(
            EvalVariantSpec(id: "five", role: .main, label: "five", engine: five, features: ExtractionFeature.allCases), fixtures: fixtures)
        #expect(sixOutcome.errors.isEmpty, "\(sixOutcome.errors)")
        let score = Scorer.score(fixtures: fixtures, predictions: sixOutcome.predictions, scoring: Self.scoring)
        let fiveScore = Scorer.score(fixtures: fixtures, predictions: fiveOutcome.predictions)
        #expect(score.micro == fiveScore.micro)
        for feature in ExtractionFeature.allCases { #expect(score.features[feature] == fiveScore.features[feature]) }
        #expect(score.features[Self.carpools]?.metrics == Metrics(tp: 0, fp: 0, fn: 0))
        #expect(score.micro.tp > 0 && score.micro.fp == 0 && score.micro.fn == 0, "the perfect oracle: \(score.micro)")
    }

    @Test func theShippingFeaturesAreScoredAsTheScorerKnowsThem() {
        let scoring = FeatureRegistry.shipping.scoring
        #expect(scoring.ids == ScoringRegistry.shipping.ids)
        #expect(scoring.features.map(\.labelSchema) == ScoringRegistry.shipping.features.map(\.labelSchema))
        #expect(Self.scoring.ids == SixthFeatureTests.registry.ids, "each feature's labels are keyed by its own id")
    }

    // MARK: The sixth feature scored for real

    /// Offers the scripted model makes: the evidence (the message it is in is cited, its sender drives), the date and
    /// the date's words.
    typealias Offer = (evidence: String, date: String, phrase: String?)
    static let ana: Offer = ("I'll drive tomorrow", "2026-03-03", "tomorrow")
    static let dan: Offer = ("I can drive on Friday", "2026-03-06", "Friday")
    /// Quotes Dan's ask, with a day nobody offered.
    static let invented: Offer = ("Can someone take the kids to swim", "2026-03-04", nil)

    /// The model: `offers` for carpools, aliases read back from the request; the empty answer for any other feature.
    static func reply(_ offers: [Offer]) -> @Sendable (RecordedRequest) -> ScriptedReply {
        { request in
            let format = request.json?["response_format"]?["json_schema"]
            guard format?["name"]?.stringValue == "carpools" else {
                return .chat(content: CombinedSchema.emptyAnswer(format?["schema"] ?? [:]).serialized())
            }
            let user = request.json?["messages"]?.arrayValue?.last?["content"]?.stringValue ?? ""
            let block = user.components(separatedBy: "<messages>\n").last?.components(separatedBy: "\n</messages>").first ?? ""
            let lines = MessageBlock.parse(block) ?? []
            let items: [JSONValue] = offers.compactMap { offer in
                guard let line = lines.first(where: { $0.text.contains(offer.evidence) }) else { return nil }
                return ["driver": .string(line.senderAlias), "date": .string(offer.date), "date_phrase": offer.phrase.map(JSONValue.string) ?? .null,
                        "evidence": .string(offer.evidence), "source_message_ids": [.string(line.alias)]]
            }
            return .chat(content: JSONValue.object(["carpools": .array(items)]).serialized())
        }
    }

    /// The fixture through the real engine (the loopback model answering `offers`) and the eval runner, then scored.
    static func score(_ offers: [Offer]) async throws -> (score: EvalScore, predicted: PredictedItems) {
        let server = try FakeOpenAIServer(fallback: reply(offers))
        defer { server.stop() }
        let fixture = try fixture()
        let outcome = await EvalRunner(concurrency: 1).run(
            EvalVariantSpec(id: "llm", role: .main, label: "carpools", engine: try SixthFeatureTests.engine(server), features: [carpools]),
            fixtures: [fixture])
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        return (Scorer.score(fixtures: [fixture], predictions: outcome.predictions, scoring: scoring),
                outcome.predictions[fixture.id] ?? PredictedItems())
    }

    @Test func theSixthFeatureIsScoredAgainstItsLabels() async throws {
        // Both offers found: every label matched, the driver right on each pair.
        let both = try await Self.score([Self.ana, Self.dan])
        let perfect = try #require(both.score.features[Self.carpools])
        #expect(perfect.metrics == Metrics(tp: 2, fp: 0, fn: 0))
        #expect(perfect.fieldAccuracy["driver"] == FieldAccuracy(correct: 2, total: 2))
        #expect(both.predicted[ScoredCarpool.self] == [
            ScoredCarpool(driver: "ana", date: LocalDate(iso: "2026-03-03")!, source: ["m2"]),
            ScoredCarpool(driver: "dan", date: LocalDate(iso: "2026-03-06")!, source: ["m3"]),
        ])
        #expect(both.score.micro == Metrics(tp: 2, fp: 0, fn: 0), "the five features' empty labels are met by silence")

        // Dan's offer missed: recall halves, precision stays.
        let missed = try #require(try await Self.score([Self.ana]).score.features[Self.carpools])
        #expect(missed.metrics == Metrics(tp: 1, fp: 0, fn: 1))
        #expect(missed.recall == 0.5 && missed.precision == 1)

        // An offer nobody made (quoting Dan's ask, on another day): precision falls, and it is a date mistake.
        let invented = try await Self.score([Self.ana, Self.dan, Self.invented])
        let withInvented = try #require(invented.score.features[Self.carpools])
        #expect(withInvented.metrics == Metrics(tp: 2, fp: 1, fn: 0))
        #expect(withInvented.precision == 2.0 / 3 && withInvented.recall == 1)
        #expect(withInvented.dateMistakes == 1)
        #expect(withInvented.f1 < perfect.f1)
    }

    @Test func theFixtureSchemaAndChecksTakeTheSixthFeaturesLabels() throws {
        let file = try Self.fixturesPath() + "/carpool-offers.yaml"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let fixture = try Self.fixture()
        #expect(fixture.expected.count(of: Self.carpools) == 2)
        #expect(fixture.expected[ScoredCarpool.self].first == ScoredCarpool(driver: "ana", date: LocalDate(iso: "2026-03-03")!, source: ["m1", "m2"]))

        func problems(_ text: String, scoring: ScoringRegistry) -> [String] {
            do {
                _ = try FixtureLoader.parse(text, file: file, scoring: scoring)
                return []
            } catch {
                return error.problems.map { "\($0.line) \($0.field): \($0.message)" }
            }
        }
        // The five that ship know no carpools list; with it registered, a fixture without one is not labelled for it.
        let five = problems(text, scoring: .shipping)
        #expect(five.count == 1 && five.first?.hasPrefix("15 expected: unexpected property 'carpools'") == true, "\(five)")
        let unlabelled = text.components(separatedBy: "  carpools:\n").first ?? ""
        #expect(problems(unlabelled, scoring: Self.scoring).isEmpty)
        #expect(try FixtureLoader.parse(unlabelled, file: file, scoring: Self.scoring).unlabelled == [Self.carpools])
        // Its schema and its ids are checked like the five's.
        let badDate = text.replacingOccurrences(of: "date: 2026-03-06", with: "date: Friday")
        #expect(problems(badDate, scoring: Self.scoring).contains { $0.hasPrefix("22 expected.carpools[1].date:") })
        let stranger = text.replacingOccurrences(of: "{driver: dan,", with: "{driver: zoe,")
        #expect(problems(stranger, scoring: Self.scoring) == ["22 expected.carpools[1].driver: 'zoe' is not a participant"])
        let unknownMessage = text.replacingOccurrences(of: "source: [m3]", with: "source: [m9]")
        #expect(problems(unknownMessage, scoring: Self.scoring) == ["22 expected.carpools[1].source[0]: 'm9' is not a message id"])
    }

    @Test func anEvalRunWithTheSixthFeatureRegisteredScoresAndReportsIt() async throws {
        // The shipped prompts and schemas beside the sixth feature's, laid out as in a checkout.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sixth-eval-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["prompts", "schemas"] {
            let target = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for source in [RepositoryPaths.root.appendingPathComponent(folder), try SixthFeatureTests.resources().appendingPathComponent(folder)] {
                for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
                    try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: target.appendingPathComponent(name))
                }
            }
        }
        var options = EvalRunOptions()
        options.registry = SixthFeatureTests.registry
        options.features = SixthFeatureTests.registry.ids
        options.fixturesPath = try Self.fixturesPath()
        options.promptsPath = root.appendingPathComponent("prompts").path
        options.provider = .rules
        options.environment = [:]
        options.concurrency = 1
        let run = try await EvalSession.run(options)

        // The rule-based provider finds no carpools: both labels are misses, in the numbers and in the report.
        #expect(run.report.features == SixthFeatureTests.registry.ids)
        let main = try #require(run.report.main)
        #expect(main.errors.isEmpty, "\(main.errors)")
        #expect(main.score.features[Self.carpools]?.metrics == Metrics(tp: 0, fp: 0, fn: 2))
        #expect(run.report.preFilter.features[Self.carpools]?.expected == 2)
        let markdown = run.report.markdown()
        #expect(markdown.contains("| carpools | — | 0.000 | 0.000 |"))
        #expect(markdown.contains("- **carpool-offers** carpools\n  - FN expected: date: 2026-03-03 · source: m1, m2 · driver: ana"))
    }

    @Test func predictionsFilesCarryTheSixthFeature() throws {
        let fixture = try Self.fixture()
        var predicted = PredictedItems()
        predicted[ScoredCarpool.self] = [ScoredCarpool(driver: nil, date: LocalDate(iso: "2026-03-03")!, source: ["m2"])]
        let text = PredictionsFile.serialize([fixture.id: predicted], scoring: Self.scoring)
        #expect(text.contains(#""feature":"carpools""#))
        let read = try PredictionsFile.parse(text, file: "p.jsonl", fixtureIDs: [fixture.id], scoring: Self.scoring)
        #expect(read == [fixture.id: predicted])
        #expect(throws: PredictionsFileError.self) {
            _ = try PredictionsFile.parse(text, file: "p.jsonl", fixtureIDs: [fixture.id])
        }
        let score = Scorer.score(fixtures: [fixture], predictions: read, scoring: Self.scoring)
        #expect(score.features[Self.carpools]?.metrics == Metrics(tp: 1, fp: 0, fn: 1))
        #expect(score.features[Self.carpools]?.fieldAccuracy["driver"] == FieldAccuracy(correct: 0, total: 1))
        #expect(score.table().contains("carpools"))
    }
}
