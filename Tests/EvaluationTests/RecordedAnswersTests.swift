import AgentRuntime
import Crypto
import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation

/// `eval --export-requests` and `eval --provider recorded`: a model this machine cannot call, scored as a live one.
@Suite("Eval with exported requests and recorded answers")
struct RecordedAnswersTests {
    /// Four fixtures, two of them long enough to need two windows at `windowing`.
    static let fixtureNames = ["class-picnic", "co-parent-weekend-swap", "sick-kid-pickup", "piano-lesson-request"]
    static let windowing = Windowing(maxInputTokens: 200)

    static func fixtures() throws -> URL {
        let directory = try EvalTestSupport.temporaryDirectory("fixtures")
        for name in fixtureNames {
            try FileManager.default.copyItem(atPath: "\(EvalTestSupport.fixturesPath)/\(name).yaml",
                                             toPath: directory.appendingPathComponent("\(name).yaml").path)
        }
        return directory
    }

    /// A copy of the real prompts (and the schemas they name) plus a `calendar_events` version after the pinned one, whose system prompt
    /// has one more sentence, for --compare and stale answers.
    static func promptsWithNextCalendarVersion() throws -> URL {
        let root = try EvalTestSupport.temporaryDirectory("prompt-set")
        let directory = root.appendingPathComponent("prompts")
        try FileManager.default.copyItem(atPath: EvalTestSupport.promptsPath, toPath: directory.path)
        try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent("schemas"), to: root.appendingPathComponent("schemas"))
        // A version 5 of the pinned version 4, one sentence longer.
        let v2 = try String(contentsOf: directory.appendingPathComponent("calendar_events.v4.yaml"), encoding: .utf8)
        let v3 = v2.replacingOccurrences(of: "\nversion: 4\n", with: "\nversion: 5\n")
            .replacingOccurrences(of: "\nsystem: |\n", with: "\nsystem: |\n  Read every message.\n")
        #expect(v3.contains("\nversion: 5\n") && v3.contains("Read every message."))
        try v3.write(to: directory.appendingPathComponent("calendar_events.v5.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    /// Options for a recorded or exporting run: no key, no server.
    static func offline(fixtures: URL, prompts: String = EvalTestSupport.promptsPath, answers: URL? = nil) -> EvalRunOptions {
        var options = EvalRunOptions()
        options.fixturesPath = fixtures.path
        options.promptsPath = prompts
        options.provider = .recorded
        options.answersDirectory = answers
        options.windowing = windowing
        options.environment = [:]
        return options
    }

    static func sha(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// Exports `options`' requests to a new folder and answers each with the labels (`LabelledAnswers`).
    static func exportAndAnswer(_ options: EvalRunOptions, answers: LabelledAnswers) async throws -> (URL, RequestPlan) {
        let directory = try EvalTestSupport.temporaryDirectory("requests")
        let plan = try await RequestExport.plan(options)
        try RequestExport.write(plan, to: directory)
        for request in plan.requests {
            let content = try #require(answers.content(for: try JSONValue.parse(request.body)))
            try Data(content.utf8).write(to: directory.appendingPathComponent(request.answerPath))
        }
        return (directory, plan)
    }

    @Test("export writes one readable file per fixture, unit and window, and a manifest, for per-feature, combined and compare runs")
    func exportModes() async throws {
        let fixtures = try Self.fixtures()
        let prompts = try Self.promptsWithNextCalendarVersion()
        var perFeature = Self.offline(fixtures: fixtures, prompts: prompts.path)
        let directory = try EvalTestSupport.temporaryDirectory("requests")
        let plan = try await RequestExport.plan(perFeature)
        #expect(try RequestExport.write(plan, to: directory) == plan.requests.count)

        // Every feature of every fixture, and the long fixtures' second window.
        #expect(plan.mode == "per_feature")
        #expect(Set(plan.requests.map(\.fixture)) == Set(Self.fixtureNames))
        #expect(Set(plan.requests.map(\.unit)) == Set(ScoringRegistry.shipping.ids.map(\.rawValue)))
        #expect(plan.requests.contains { $0.window == 1 }, "no fixture was split into two windows")
        for request in plan.requests where request.window == 1 {
            #expect(plan.requests.contains { $0.fixture == request.fixture && $0.unit == request.unit && $0.window == 0 })
        }

        // The manifest lists every file with its body hash; each file name carries the hash and the sections are in order.
        let manifest = try JSONValue.parse(try Data(contentsOf: directory.appendingPathComponent("manifest.json")))
        #expect(manifest["mode"]?.stringValue == "per_feature")
        #expect(manifest["fixture_count"]?.integerValue == Int64(Self.fixtureNames.count))
        #expect(manifest["prompts"]?.arrayValue?.contains { $0["id"]?.stringValue == "rsvps" && $0["sha256"]?.stringValue?.count == 64 } == true)
        let files = try #require(manifest["files"]?.arrayValue)
        #expect(files.count == plan.requests.count)
        for (file, request) in zip(files, plan.requests) {
            let path = try #require(file["request_file"]?.stringValue)
            #expect(path == "\(request.fixture)/\(request.unit)@\(request.promptVersion).w\(request.window).\(request.sha256.prefix(12)).request.md")
            #expect(file["answer_file"]?.stringValue == path.replacingOccurrences(of: ".request.md", with: ".answer.json"))
            #expect(file["body_sha256"]?.stringValue == Self.sha(request.body))
            #expect(file["prompt"]?.stringValue == "\(request.promptID)@\(request.promptVersion)")
            #expect(file["window"]?.integerValue == Int64(request.window))
            let text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
            #expect(text.hasPrefix("# fixture \(request.fixture) · \(request.unit) · window \(request.window) · \(request.promptID)@"))
            let system = try #require(text.range(of: "\n## system\n"))
            let user = try #require(text.range(of: "\n## user\n"))
            let format = try #require(text.range(of: "\n## response_format\n\n```json\n"))
            #expect(system.lowerBound < user.lowerBound && user.lowerBound < format.lowerBound)
            // The schema in the file is the one in the body.
            let body = try JSONValue.parse(request.body)
            let fenced = text[format.upperBound...].prefix { $0 != "`" }
            #expect(try JSONValue.parse(String(fenced)) == body["response_format"])
        }

        // Combined: one request per fixture window, under `combined@<version>`.
        perFeature.mode = .combined
        let combined = try await RequestExport.plan(perFeature)
        #expect(combined.mode == "combined")
        #expect(Set(combined.requests.map(\.unit)) == ["combined"])
        #expect(combined.requests.count == plan.requests.count / ScoringRegistry.shipping.ids.count)

        // Compare: the main variant's requests and the compared version's (only its feature).
        var compare = Self.offline(fixtures: fixtures, prompts: prompts.path)
        compare.compareVersions = [.calendarEvents: 5]
        let compared = try await RequestExport.plan(compare)
        #expect(compared.compare == ["calendar_events=5"])
        let v2 = compared.requests.filter { $0.unit == "calendar_events" && $0.promptVersion == 5 }
        #expect(v2.count == plan.requests.filter { $0.unit == "calendar_events" }.count && !v2.isEmpty)
        #expect(compared.requests.count == plan.requests.count + v2.count)
        var compareCombined = Self.offline(fixtures: fixtures)
        compareCombined.compareMode = .combined
        let both = try await RequestExport.plan(compareCombined)
        #expect(both.requests.count == plan.requests.count + combined.requests.count)
    }

    @Test("the hash in a file name is the hash of the body the live run sends to the model, and both JSONs are equal")
    func exportMatchesLiveRequests() async throws {
        let fixtures = try Self.fixtures()
        let answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        for combined in [false, true] {
            let server = try FakeOpenAIServer { [answers] in answers.reply($0) }
            defer { server.stop() }
            var live = EvalTestSupport.options(fixtures: fixtures.path, server: server, cache: try EvalTestSupport.temporaryDirectory("cache"))
            live.windowing = Self.windowing
            live.mode = combined ? .combined : .perFeature
            _ = try await EvalSession.run(live)
            var offline = Self.offline(fixtures: fixtures)
            offline.mode = combined ? .combined : .perFeature
            let plan = try await RequestExport.plan(offline)
            let exported = Dictionary(uniqueKeysWithValues: plan.requests.map { ($0.sha256, $0) })
            let sent = server.requests
            #expect(sent.count == plan.requests.count)
            for request in sent {
                let match = try #require(exported[Self.sha(request.body)], "a live request has no exported file")
                #expect(try JSONValue.parse(match.body) == request.json)
                #expect(match.requestPath.contains(".\(Self.sha(request.body).prefix(12)).request.md"))
            }
        }
    }

    @Test("recorded answers score exactly as the same answers served by a model server, per feature and combined")
    func recordedScoresLikeLive() async throws {
        let fixtures = try Self.fixtures()
        var answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        answers.emptyFeatures = ["deadlines"]
        for combined in [false, true] {
            let server = try FakeOpenAIServer { [answers] in answers.reply($0) }
            defer { server.stop() }
            var live = EvalTestSupport.options(fixtures: fixtures.path, server: server, cache: try EvalTestSupport.temporaryDirectory("cache"))
            live.windowing = Self.windowing
            live.mode = combined ? .combined : .perFeature
            let liveReport = try await EvalSession.run(live).report

            var offline = Self.offline(fixtures: fixtures)
            offline.mode = combined ? .combined : .perFeature
            let (directory, plan) = try await Self.exportAndAnswer(offline, answers: answers)
            offline.answersDirectory = directory
            let recorded = try await EvalSession.run(offline).report
            let liveMain = try #require(liveReport.main)
            let recordedMain = try #require(recorded.main)
            #expect(recordedMain.provider == "openai" && recordedMain.label.hasPrefix("recorded"))
            #expect(recordedMain.errors.isEmpty && liveMain.errors.isEmpty)
            #expect(recordedMain.score.micro == liveMain.score.micro)
            #expect(recordedMain.score.micro.tp > 0 && recordedMain.score.micro.fn > 0, "the run measures nothing")
            for feature in ScoringRegistry.shipping.ids {
                #expect(recordedMain.score.features[feature] == liveMain.score.features[feature], "\(feature.rawValue)")
            }
            #expect(recordedMain.grounding == liveMain.grounding)
            let summary = try #require(recorded.recordedAnswers)
            #expect(summary.expected == plan.requests.count && summary.answered == plan.requests.count)
            #expect(summary.missing.isEmpty && summary.stale.isEmpty && summary.reaskMissing.isEmpty && summary.unmatched == 0)
            #expect(recorded.summaryText().contains("recorded answers from \(directory.path): \(plan.requests.count) used"))
        }
    }

    @Test("an answer for another prompt version is stale and unused, and a missing answer is a failed extraction")
    func staleAndMissing() async throws {
        let fixtures = try Self.fixtures()
        let prompts = try Self.promptsWithNextCalendarVersion()
        let answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        // Answers recorded for calendar_events@4 (the pinned version), scored against calendar_events@5.
        let (directory, plan) = try await Self.exportAndAnswer(Self.offline(fixtures: fixtures, prompts: prompts.path), answers: answers)
        var options = Self.offline(fixtures: fixtures, prompts: prompts.path, answers: directory)
        options.promptVersions = [.calendarEvents: 5]
        // And one rsvps answer removed.
        let removed = try #require(plan.requests.first { $0.unit == "rsvps" })
        try FileManager.default.removeItem(at: directory.appendingPathComponent(removed.answerPath))

        let report = try await EvalSession.run(options).report
        let summary = try #require(report.recordedAnswers)
        let calendar = plan.requests.filter { $0.unit == "calendar_events" }
        #expect(summary.stale == calendar.map(\.answerPath).sorted())
        // Only each fixture's first window is asked: a unit stops at its first failed window.
        #expect(summary.missing.count == Self.fixtureNames.count + 1)
        #expect(summary.missing.contains(removed.answerPath))
        #expect(summary.missing.allSatisfy { !$0.contains("calendar_events@4") })
        let main = try #require(report.main)
        // Each fixture's calendar events failed once (windows of one unit fail together), and the removed rsvps answer.
        #expect(main.errors.filter { $0.feature == .calendarEvents }.count == Self.fixtureNames.count)
        #expect(main.errors.filter { $0.feature == .rsvps }.map(\.fixture) == [removed.fixture])
        #expect(main.errors.allSatisfy { $0.message.contains("no recorded answer") })
        #expect(main.score.features[.calendarEvents]?.tp == 0)
        let text = report.summaryText()
        #expect(text.contains("\(calendar.count) stale"))
        #expect(text.contains("stale: \(calendar[0].answerPath)"))
        #expect(report.markdown().contains("## Recorded answers"))
        let json = try JSONValue.parse(try report.jsonData())
        #expect(json["recorded_answers"]?["stale"]?.arrayValue?.count == calendar.count)
    }

    @Test("an invalid answer triggers the re-ask; its request is written to missing/, and its answer is used on the next run")
    func invalidAnswerReasks() async throws {
        let fixtures = try Self.fixtures()
        let answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        let (directory, plan) = try await Self.exportAndAnswer(Self.offline(fixtures: fixtures), answers: answers)
        let target = try #require(plan.requests.first { $0.unit == "decisions" && $0.window == 0 })
        let good = try Data(contentsOf: directory.appendingPathComponent(target.answerPath))
        try Data(#"{"not_the_schema": true}"#.utf8).write(to: directory.appendingPathComponent(target.answerPath))
        let options = Self.offline(fixtures: fixtures, answers: directory)

        let first = try await EvalSession.run(options).report
        let main = try #require(first.main)
        // The re-ask was sent and found no answer: the unit failed on it (EvalRunner counts a re-ask only once answered).
        #expect(main.errors.map(\.fixture) == [target.fixture])
        #expect(main.errors.first?.message.contains("no recorded answer") == true)
        #expect(main.errors.first?.message.contains(".reask.") == true)
        let summary = try #require(first.recordedAnswers)
        #expect(summary.reaskMissing.count == 1)
        let reaskFile = try #require(summary.reaskMissing.first)
        #expect(reaskFile.hasPrefix("missing/\(target.folder)/\(target.stem).reask."))
        let reask = try String(contentsOf: directory.appendingPathComponent(reaskFile), encoding: .utf8)
        #expect(reask.contains("re-ask"))
        #expect(reask.contains("not_the_schema"))
        #expect(reask.contains("Your answer is not valid for the required JSON schema"))
        // The unanswered re-ask is neither stale nor a first answer reported missing.
        #expect(summary.stale.isEmpty && summary.missing.isEmpty)

        // Someone answers the re-ask; the next run uses it and the unit is scored.
        try good.write(to: directory.appendingPathComponent(reaskFile.replacingOccurrences(of: ".request.md", with: ".answer.json")))
        let second = try await EvalSession.run(options).report
        let fixed = try #require(second.main)
        #expect(fixed.errors.isEmpty)
        #expect(fixed.reasks == 1)
        #expect(second.recordedAnswers?.reaskMissing.isEmpty == true)
        #expect(second.recordedAnswers?.stale.isEmpty == true)
    }

    @Test("the CLI exports without a key, and scores recorded answers into reports")
    func cli() async throws {
        let fixtures = try Self.fixtures()
        let directory = try EvalTestSupport.temporaryDirectory("requests")
        let export = try await EvalChild.run(["eval", "--fixtures", fixtures.path, "--prompts", EvalTestSupport.promptsPath,
                                              "--export-requests", directory.path],
                                             environment: ["OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "DATABASE_URL": ""])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("request files for \(Self.fixtureNames.count) fixtures (combined)"))
        let manifest = try JSONValue.parse(try Data(contentsOf: directory.appendingPathComponent("manifest.json")))
        let files = try #require(manifest["files"]?.arrayValue)
        for file in files {
            let request = try String(contentsOf: directory.appendingPathComponent(try #require(file["request_file"]?.stringValue)), encoding: .utf8)
            #expect(request.contains("## response_format"))
        }
        let out = try EvalTestSupport.temporaryDirectory("report")
        let scored = try await EvalChild.run(["eval", "--fixtures", fixtures.path, "--prompts", EvalTestSupport.promptsPath,
                                              "--provider", "recorded", "--answers", directory.path, "--report", out.path],
                                             environment: ["OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""])
        // No answers yet: every extraction failed, so the run fails and says what is missing.
        #expect(scored.status != 0)
        #expect(scored.stdout.contains("0 used for \(files.count) requests; "))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.json").path))
        let refused = try await EvalChild.run(["eval", "--provider", "recorded"])
        #expect(refused.status != 0 && refused.stderr.contains("--answers"))
    }
}
