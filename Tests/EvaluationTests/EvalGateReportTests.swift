import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation

/// Issue 48: the gate's verdict heads report.md and report.html (a CI artifact says why the job failed), a recorded run's
/// missing answer is named as such and a failed combined request counts once, and `eval --compare FEATURE=N` makes
/// the main variant's kind of request.
@Suite("Eval verdict, recorded-answer problems and same-mode compare", .serialized)
struct EvalGateReportTests {
    struct Finished {
        let code: Int32
        let stdout: String
        let stderr: String
    }

    static func eval(_ arguments: String, in directory: URL) async throws -> Finished {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let child = try SpawnedProcess(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "cd '\(directory.path)' && messageai-jobs eval \(arguments)"],
            adding: ["MESSAGEAI_HOME": RepositoryPaths.root.path, "PATH": binaries + ":/usr/bin:/bin", "LOG_LEVEL": "error"])
        let end = try await child.waitForExit(timeout: 300)
        return Finished(code: end.code, stdout: child.stdout, stderr: child.stderr)
    }

    @Test("a failed gate exits 2 and its verdict and failing check head report.md, report.html and report.json; a passed one says so")
    func verdictHeadsTheReports() async throws {
        let directory = try EvalTestSupport.temporaryDirectory("gate")
        let fixtures = "\(EvalTestSupport.fixturesPath)/field-trip-deadlines.yaml"
        let failed = try await Self.eval("--provider rules --features calendar_events,deadlines --fixtures '\(fixtures)' --fail-under 0.99 --report out/failed", in: directory)
        #expect(failed.code == 2, "\(failed.stderr)")
        #expect(failed.stderr.contains("FAIL: micro F1"), "\(failed.stderr)")
        let markdown = try String(contentsOf: directory.appendingPathComponent("out/failed/report.md"), encoding: .utf8)
        let lines = markdown.components(separatedBy: "\n")
        #expect(lines.count > 4 && lines[2] == "**Gate: FAILED (exit 2): 1 of 2 checks failed**", "\(lines.prefix(6))")
        #expect(lines[4].hasPrefix("- ✗ `--fail-under 0.9900`: micro F1 ") && lines[4].hasSuffix("is below --fail-under 0.9900"), "\(lines[4])")
        #expect(markdown.contains("- ✓ `--max-failures 0`: rules: 0 failed extractions"))
        let html = try String(contentsOf: directory.appendingPathComponent("out/failed/report.html"), encoding: .utf8)
        let gate = try #require(html.range(of: "<div class=\"banner\" id=\"gate\" role=\"alert\"><strong>Gate: FAILED (exit 2)"))
        #expect(gate.lowerBound < (html.range(of: "<h2>")?.lowerBound ?? html.startIndex), "the verdict comes before every section")
        #expect(html.contains("✗ <code>--fail-under 0.9900</code>: micro F1 "))
        let json = try JSONValue.parse(Data(contentsOf: directory.appendingPathComponent("out/failed/report.json")))
        #expect(json["gate"]?["passed"] == false && json["gate"]?["exit_code"]?.integerValue == 2)
        #expect(failed.stdout.hasPrefix("gate: FAILED (exit 2)"), "\(failed.stdout.prefix(200))")

        let passed = try await Self.eval("--provider rules --features calendar_events,deadlines --fixtures '\(fixtures)' --fail-under 0.1 --report out/passed", in: directory)
        #expect(passed.code == 0, "\(passed.stderr)")
        let passedMarkdown = try String(contentsOf: directory.appendingPathComponent("out/passed/report.md"), encoding: .utf8)
        #expect(passedMarkdown.components(separatedBy: "\n")[2] == "**Gate: PASSED: all 2 checks passed**")
        #expect(try String(contentsOf: directory.appendingPathComponent("out/passed/report.html"), encoding: .utf8)
            .contains("<div class=\"verdict\" id=\"gate\"><strong>Gate: PASSED"))
    }

    @Test("a missing recorded answer of a combined request is one failed extraction, named as a missing answer, not an HTTP 404")
    func missingCombinedAnswerCountsOnce() async throws {
        let fixtures = try RecordedAnswersTests.fixtures()
        let answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        var options = RecordedAnswersTests.offline(fixtures: fixtures)
        options.mode = .combined
        let (directory, plan) = try await RecordedAnswersTests.exportAndAnswer(options, answers: answers)
        let removed = try #require(plan.requests.first { $0.window == 0 })
        try FileManager.default.removeItem(at: directory.appendingPathComponent(removed.answerPath))
        options.answersDirectory = directory

        let report = try await EvalSession.run(options).report
        let main = try #require(report.main)
        #expect(main.errors.count == 1, "one request failed, so one failed extraction: \(main.errors.map(\.unit))")
        let error = try #require(main.errors.first)
        #expect(error.fixture == removed.fixture && error.feature.rawValue == "combined")
        #expect(error.features == ScoringRegistry.shipping.ids)
        #expect(error.message.hasPrefix("no recorded answer for request \(removed.requestPath)"), "\(error.message)")
        #expect(!error.message.contains("HTTP 404") && !error.message.contains("LLM server"), "\(error.message)")
        let line = EvalGates.failedExtractions(main)
        #expect(line.hasPrefix("llm: 1 of \(RecordedAnswersTests.fixtureNames.count) extractions failed; first: \(removed.fixture) combined (calendar_events, "),
                "\(line)")
        #expect(report.markdown().contains("no recorded answer for request \(removed.requestPath)"))
        #expect(report.summaryText().contains("1 failed extractions"))
        let failures = EvalGates.failures(report, failUnder: nil, maxRegression: nil, maxFailures: 0)
        #expect(failures.count == 1 && failures[0].contains("1 of 4 extractions failed"), "\(failures)")
    }

    @Test("--compare FEATURE=N in the combined mode sends combined requests carrying version N's rule, and warns when they cannot differ")
    func compareStaysInTheCombinedMode() async throws {
        let fixtures = try RecordedAnswersTests.fixtures()
        let prompts = try RecordedAnswersTests.promptsWithNextCalendarVersion()  // calendar_events@5: one more system sentence, the same combined_rule
        let answers = LabelledAnswers(try FixtureLoader.load(path: fixtures.path))
        let server = try FakeOpenAIServer { [answers] in answers.reply($0) }
        defer { server.stop() }
        var options = EvalTestSupport.options(fixtures: fixtures.path, server: server, cache: try EvalTestSupport.temporaryDirectory("cache"))
        options.promptsPath = prompts.path
        options.mode = .combined
        options.compareVersions = [.calendarEvents: 5]
        let same = try await EvalSession.run(options)
        #expect(same.notice?.contains("the combined request is the same as the main variant's") == true, "\(String(describing: same.notice))")
        let compare = try #require(same.report.variants.first { $0.id == "llm-compare" })
        #expect(compare.prompts[.calendarEvents]?.id == "combined" && compare.ranFeatures == ScoringRegistry.shipping.ids)
        #expect(compare.label.contains("combined@") && compare.label.contains("(calendar_events@5)"), "\(compare.label)")
        #expect(server.requests.allSatisfy { $0.json?["response_format"]?["json_schema"]?["name"]?.stringValue == "combined" },
                "no per-feature request in a combined compare")

        // Now version 5's combined_rule says something new: the compare variant's combined requests carry it.
        let file = prompts.appendingPathComponent("calendar_events.v5.yaml")
        let v3 = try String(contentsOf: file, encoding: .utf8)
        try v3.replacingOccurrences(of: " confidence 0 to 1.\n", with: " confidence 0 to 1. Rule three.\n").write(to: file, atomically: true, encoding: .utf8)
        options.cacheDirectory = try EvalTestSupport.temporaryDirectory("cache")
        let before = server.requests.count
        let changed = try await EvalSession.run(options)
        #expect(changed.notice == nil, "\(String(describing: changed.notice))")
        let sent = server.requests.dropFirst(before).compactMap { $0.json?["messages"]?[0]?["content"]?.stringValue }
        #expect(sent.filter { $0.contains("- calendar_events: ") && $0.contains("Rule three.") }.count == sent.count / 2 && !sent.isEmpty,
                "half the combined requests (the compare variant's) carry the new rule")
        let main = try #require(changed.report.main), compared = try #require(changed.report.variants.first { $0.id == "llm-compare" })
        #expect(main.prompts[.calendarEvents]?.sha256 != compared.prompts[.calendarEvents]?.sha256)
    }
}
