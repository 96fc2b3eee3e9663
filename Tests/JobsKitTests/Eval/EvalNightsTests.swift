import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing

/// `eval` over nights fixtures (docs/over-nights.md, "Eval over nights"), and `--provider labels`.
@Suite("Eval over nights")
struct EvalNightsTests {
    static var nightsPath: String { RepositoryPaths.root.appendingPathComponent("evals/nights").path }

    private func run(_ path: String, provider: ProviderChoice = .labels) async throws -> EvalRun {
        var options = EvalRunOptions()
        options.fixturesPath = path
        options.promptsPath = EvalTestSupport.promptsPath
        options.provider = provider
        options.environment = [:]
        return try await EvalSession.run(options)
    }

    /// The done-when: the labels, answered as a perfect model would, through the reconciliation, are every
    /// night exactly what the app must show.
    @Test("--provider labels scores F1 1.000 on every night of every nights fixture")
    func labelsAreRightEveryNight() async throws {
        let report = try await run(Self.nightsPath).report
        let labels = try #require(report.main)
        #expect(labels.id == "labels" && labels.provider == "labels" && labels.requests == 0)
        let nights = try #require(labels.nights)
        #expect(nights.nights.count >= 2)
        for night in nights.nights {
            #expect(night.metrics.f1 == 1, "\(night.fixture) night \(night.night): \(night.metrics)")
            #expect(night.exact, "\(night.fixture) night \(night.night) is not shown exactly right")
        }
        #expect(nights.exact == nights.nights.count && nights.exactShare == 1)
        #expect(labels.refusals == nil, "the labels' answers are never refused: \(labels.refusals ?? [:])")
        // Each night is a fixture of the score of its own, and the reports show the nights' figures.
        #expect(labels.score.fixtures.contains { $0.fixture == "mn-party-moved#2" })
        #expect(report.summaryText().contains("exactly right"))
        #expect(report.summaryText().contains("mn-party-moved"))
        #expect(EvalHTML.render(report, fixtures: []).contains("Nights (labels)"))
        let json = try JSONValue.encode(report)
        #expect(json["variants"]?[0]?["nights"]?["exact_share"] == 1)
    }

    @Test("--provider labels scores F1 1.000 on the one-night fixtures too")
    func labelsAreRightOnOneNightFixtures() async throws {
        let labels = try #require(try await run(EvalTestSupport.fixturesPath).report.main)
        #expect(labels.score.micro.f1 == 1, "\(labels.score.micro)")
        #expect(labels.nights == nil, "no nights fixture, no nights figures")
    }

    /// Today's scan, played night by night (new items only, nothing says what changed), keeps the party's old date:
    /// the baseline the issue measures against.
    @Test("the rule-based provider over nights adds and never moves")
    func rulesOverNights() async throws {
        let rules = try #require(try await run(Self.nightsPath, provider: .rules).report.main)
        let nights = try #require(rules.nights)
        #expect(nights.nights.count >= 2)
        #expect(nights.exact < nights.nights.count)
    }

    /// Today's requests over nights: each night's messages after their context, one request per night and window,
    /// exported and replayed by body; a night without its answer fails alone, and the others are still played.
    @Test("--export-requests and --provider recorded play a nights fixture night by night")
    func exportAndRecordedOverNights() async throws {
        let fixtures = try EvalTestSupport.temporaryDirectory("nights")
        try FileManager.default.copyItem(atPath: "\(Self.nightsPath)/mn-party-moved.yaml",
                                         toPath: fixtures.appendingPathComponent("mn-party-moved.yaml").path)
        var options = EvalRunOptions()
        options.fixturesPath = fixtures.path
        options.promptsPath = EvalTestSupport.promptsPath
        options.provider = .recorded
        options.mode = .combined
        options.environment = [:]
        let plan = try await RequestExport.plan(options)
        #expect(plan.requests.map(\.fixture) == ["mn-party-moved#1", "mn-party-moved#2"])
        let second = try JSONValue.parse(plan.requests[1].body).serialized()
        #expect(second.contains("Change of plan") && second.contains("Jump Zone"), "night 2 carries its message and the earlier one as context")
        #expect(!(try JSONValue.parse(plan.requests[0].body).serialized()).contains("Change of plan"), "night 1 never sees a later night")

        let answers = try EvalTestSupport.temporaryDirectory("night-answers")
        try RequestExport.write(plan, to: answers)
        let schema = try #require(try JSONValue.parse(plan.requests[0].body)["response_format"]?["json_schema"]?["schema"])
        try Data(CombinedSchema.emptyAnswer(schema).serialized().utf8).write(to: answers.appendingPathComponent(plan.requests[0].answerPath))
        options.answersDirectory = answers
        let recorded = try #require(try await EvalSession.run(options).report.main)
        #expect(Set(recorded.errors.map(\.fixture)) == ["mn-party-moved#2"], "only the night without its answer fails")
        #expect(recorded.nights?.nights.map(\.night) == [1, 2])
        #expect(recorded.nights?.nights.first?.metrics.fn == 3, "night 1 answered nothing: its three items are missed")
    }
}

