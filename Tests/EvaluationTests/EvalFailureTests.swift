import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation

/// A model that never answers must fail the eval, loudly, instead of scoring a perfect precision.
@Suite("Eval against a dead model", .serialized)
struct EvalFailureTests {
    static let fixture = EvalTestSupport.fixturesPath + "/birthday-invite-pending.yaml"

    /// A loopback URL nothing listens on: a fake server's, after it stopped.
    static func closedBaseURL() throws -> URL {
        let server = try FakeOpenAIServer()
        let url = server.baseURL
        server.stop()
        return url
    }

    @Test("every extraction failed: precision is undefined everywhere it is shown, the gate fails, the banner names the error")
    func deadModelFailsTheRun() async throws {
        let url = try Self.closedBaseURL()
        var options = EvalRunOptions()
        options.fixturesPath = Self.fixture
        options.promptsPath = EvalTestSupport.promptsPath
        options.provider = .openai
        options.features = [.calendarEvents]
        options.cacheDirectory = try EvalTestSupport.temporaryDirectory("cache")
        options.llm = LLMConfiguration(apiKey: EvalTestSupport.apiKey, baseURL: url)
        let run = try await EvalSession.run(options)
        let main = try #require(run.report.main)
        #expect(main.errors.count == 1)
        let message = try #require(main.errors.first?.message)
        #expect(message.contains("connection refused"), "\(message)")
        #expect(message.contains("server http://127.0.0.1:\(url.port ?? 0)"), "the error names the server: \(message)")
        #expect(!message.contains("error set") && !message.contains("errno: "), "NIO's internal wording is gone: \(message)")

        let score = try #require(main.score.features[.calendarEvents])
        #expect(score.precision == nil && score.tp == 0 && score.fp == 0 && score.fn > 0)
        #expect(main.score.micro.precision == nil)

        let text = run.report.summaryText()
        #expect(text.contains("— 0.000 0.000"), "\(text)")
        #expect(!text.contains("1.000 0.000"), "no fake perfect precision beside a zero recall")
        let json = try JSONValue.parse(run.report.jsonData())
        #expect(json["variants"]?[0]?["score"]?["micro"]?["precision"] == .null)
        #expect(json["variants"]?[0]?["score"]?["features"]?["calendar_events"]?["precision"] == .null)
        #expect(try EvalReport.load(path: try Self.write(run.report)).main?.score.micro.precision == nil, "null reads back as undefined")
        let markdown = run.report.markdown()
        #expect(markdown.contains("| calendar_events | — | 0.000 | 0.000 |"), "\(markdown)")
        let html = EvalHTML.render(run.report, fixtures: run.fixtures)
        let banner = try #require(html.range(of: "<div class=\"banner\""))
        #expect(banner.lowerBound < (html.range(of: "<h2>")?.lowerBound ?? html.startIndex), "the banner comes before every section")
        #expect(html.contains("llm: 1 of 1 extractions failed; first: birthday-invite-pending calendar_events:"))
        #expect(html.contains("<td class=\"n\">—</td>"))

        let failures = EvalGates.failures(run.report, failUnder: nil, maxRegression: nil)
        #expect(failures.count == 1 && failures[0].contains("more than --max-failures 0"), "\(failures)")
        #expect(EvalGates.failures(run.report, failUnder: nil, maxRegression: nil, maxFailures: 1).isEmpty)
        let gate = EvalGates.failures(run.report, failUnder: 0, maxRegression: nil, maxFailures: 1)
        #expect(gate == ["calendar_events: llm predicted nothing for \(score.fn) expected items (precision undefined)"], "\(gate)")
    }

    @Test("a baseline that predicted nothing gives no precision delta")
    func noDeltaAgainstUndefinedPrecision() {
        let delta = FeatureDelta(baseline: Metrics(tp: 0, fp: 0, fn: 4), current: Metrics(tp: 3, fp: 1, fn: 1))
        #expect(delta.precisionDelta == nil)
        #expect(FeatureDelta(baseline: Metrics(tp: 1, fp: 1, fn: 0), current: Metrics(tp: 3, fp: 1, fn: 1)).precisionDelta == 0.25)
    }

    @Test("messageai-jobs eval against a closed port exits non-zero and prints — for precision")
    func cliExitsNonZero() async throws {
        let url = try Self.closedBaseURL()
        let cache = try EvalTestSupport.temporaryDirectory("cache")
        let env = ["OPENAI_BASE_URL": url.absoluteString, "OPENAI_API_KEY": EvalTestSupport.apiKey, "LOG_LEVEL": "error"]
        let run = try await JobsBinary.run(
            ["eval", "--fixtures", Self.fixture, "--prompts", EvalTestSupport.promptsPath, "--features", "rsvps", "--cache-dir", cache.path],
            environment: env)
        #expect(run.code == 2, "a failed gate exits 2, as the README says: \(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("rsvps") && run.stdout.contains("— 0.000 0.000"), "\(run.stdout)")
        #expect(run.stderr.contains("FAIL: llm: 1 of 1 extractions failed"), "\(run.stderr)")

        let allowed = try await JobsBinary.run(
            ["eval", "--fixtures", Self.fixture, "--prompts", EvalTestSupport.promptsPath, "--features", "rsvps", "--cache-dir", cache.path,
             "--max-failures", "1"],
            environment: env)
        #expect(allowed.code == 0, "--max-failures 1 allows the one failure: \(allowed.stderr)")
    }

    static func write(_ report: EvalReport) throws -> String {
        let path = try EvalTestSupport.temporaryDirectory("report").appendingPathComponent("report.json").path
        try report.jsonData().write(to: URL(fileURLWithPath: path))
        return path
    }
}
