import Extractors
import Foundation
import Core
import JobsKit
import Testing
import Evaluation
import TestSupport

/// Runs without a model: the rule-based provider, the pre-filter audit, and the CLI as a child process.
@Suite("Eval with the rule-based provider")
struct EvalRulesTests {
    @Test("--provider rules runs over the real fixtures with no server, and its scores are the report's")
    func rulesOnly() async throws {
        var options = EvalRunOptions()
        options.fixturesPath = EvalTestSupport.fixturesPath
        options.promptsPath = EvalTestSupport.promptsPath
        options.provider = .rules
        options.environment = [:]
        let run = try await EvalSession.run(options)
        let report = run.report
        #expect(report.variants.count == 1)
        let rules = try #require(report.main)
        #expect(rules.id == "rules" && rules.provider == "rules" && rules.model == "rules")
        #expect(rules.requests == 0 && rules.cache == nil && rules.errors.isEmpty)

        // The report's numbers are the scorer's over the rule-based predictions.
        let expectedTotal = run.fixtures.map { f in ExtractionFeature.allCases.map { f.expected.count(of: $0) }.reduce(0, +) }.reduce(0, +)
        #expect(rules.score.micro.tp + rules.score.micro.fn == expectedTotal)
        #expect(rules.score.micro.tp > 0, "the rules find something in the fixtures")
        #expect(report.summaryText().contains(String(format: "%.3f", rules.score.micro.f1)))
        #expect(report.markdown().contains(String(format: "%.3f", rules.score.micro.f1)))

        // --features restricts both the run and every number.
        options.features = [.deadlines]
        let deadlines = try #require(try await EvalSession.run(options).report.main)
        #expect(deadlines.score.micro == deadlines.score.features[.deadlines]?.metrics)
        #expect(deadlines.score.features[.deadlines]?.metrics == rules.score.features[.deadlines]?.metrics)
        #expect(deadlines.prompts.keys.sorted { $0.rawValue < $1.rawValue } == [.deadlines])
    }

    @Test("the pre-filter drops no expected item of the real fixtures")
    func preFilterKeepsEveryExpectedItem() throws {
        let fixtures = try EvalTestSupport.realFixtures()
        let audit = PreFilterAudit.audit(fixtures, features: ExtractionFeature.allCases)
        let expected = ExtractionFeature.allCases.map { feature in fixtures.map { $0.expected.count(of: feature) }.reduce(0, +) }.reduce(0, +)
        #expect(audit.features.values.map(\.expected).reduce(0, +) == expected)
        #expect(audit.droppedMessages > 0, "the pre-filter drops some chatter, or this test proves nothing")
        let described = audit.misses.map { "\($0.fixture) \($0.feature.rawValue)[\($0.expectedIndex)] sources \($0.sources)" }
        #expect(audit.totalMisses == 0, "expected items citing only messages the pre-filter drops: \(described)")
    }

    @Test("the pre-filter audit counts an item whose every source is dropped")
    func preFilterAuditCounts() throws {
        let fixture = try FixtureLoader.parse("""
            id: chatter
            description: One cue-less message labelled as a decision.
            reference: {now: "2026-03-02T20:00:00-05:00", timezone: America/New_York, user: maria}
            participants: [{id: maria, name: Maria}, {id: dan, name: Dan}]
            messages:
              - {id: m1, sender: dan, sent_at: "2026-03-02T08:14:00-05:00", text: "lol thanks!"}
              - {id: m2, sender: maria, sent_at: "2026-03-02T08:15:00-05:00", text: "Practice is tomorrow at 5?"}
            expected:
              calendar_events: []
              decisions:
                - {decision: only chatter, category: other, source: [m1]}
                - {decision: chatter or a question, category: other, source: [m1, m2]}
              priority_messages: []
              rsvps: []
              deadlines: []
            """, file: "chatter.yaml")
        let audit = PreFilterAudit.audit([fixture], features: ExtractionFeature.allCases)
        #expect(audit.messages == 2 && audit.droppedMessages == 1)
        #expect(audit.features[.decisions] == PreFilterCount(expected: 2, onlyDropped: 1))
        #expect(audit.misses == [PreFilterMiss(fixture: "chatter", feature: .decisions, expectedIndex: 0, sources: ["m1"])])
    }

    @Test("the CLI: eval is the default subcommand, --fail-under fails the run, reports are written, prompts render prints JSON")
    func commandLine() async throws {
        let out = try EvalTestSupport.temporaryDirectory("cli")
        let common = ["--provider", "rules", "--fixtures", EvalTestSupport.fixturesPath, "--prompts", EvalTestSupport.promptsPath]

        let failing = try await EvalChild.run(["eval"] + common + ["--report", out.path, "--fail-under", "0.99"])
        #expect(!failing.timedOut)
        #expect(failing.status == 2, "a failed gate exits 2, as the README says")
        #expect(failing.stderr.contains("FAIL: micro F1"), "stderr: \(failing.stderr)")
        #expect(failing.stdout.contains("micro"))
        for name in ["report.json", "report.md", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name) missing")
        }

        let passing = try await EvalChild.run(["eval", "run"] + common + ["--json", "--fail-under", "0.05",
                                                                         "--baseline", out.appendingPathComponent("report.json").path,
                                                                         "--max-regression", "0"])
        #expect(!passing.timedOut)
        #expect(passing.status == 0, "stderr: \(passing.stderr)")
        let json = try JSONValue.parse(passing.stdout)
        #expect(json["variants"]?.arrayValue?.first?["id"]?.stringValue == "rules")
        #expect(json["baseline"]?["micro"]?["f1_delta"]?.doubleValue == 0)
        #expect(json["baseline"]?["regressions"]?.arrayValue?.isEmpty == true)

        let render = try await EvalChild.run(["prompts", "render", "--prompt", "calendar_events@1", "--fixture", "class-picnic",
                                              "--fixtures", EvalTestSupport.fixturesPath, "--prompts", EvalTestSupport.promptsPath])
        #expect(render.status == 0, "stderr: \(render.stderr)")
        let body = try JSONValue.parse(render.stdout)
        #expect(body["response_format"]?["json_schema"]?["name"]?.stringValue == "calendar_events")
        #expect(body["messages"]?.arrayValue?.last?["content"]?.stringValue?.contains("Conversation: Parents group") == true)
        let openAISchema = try #require(body["response_format"]?["json_schema"]?["schema"])
        #expect(!openAISchema.serialized().contains("maxItems") && !openAISchema.serialized().contains("maxLength"),
                "OpenAI's strict schema leaves the caps to local validation")
        // A server that builds a grammar from the schema (any base URL but OpenAI's) is sent the caps.
        let local = try await EvalChild.run(["prompts", "render", "--prompt", "calendar_events@1", "--fixture", "class-picnic",
                                             "--fixtures", EvalTestSupport.fixturesPath, "--prompts", EvalTestSupport.promptsPath],
                                            environment: ["OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(local.status == 0, "stderr: \(local.stderr)")
        let events = try JSONValue.parse(local.stdout)["response_format"]?["json_schema"]?["schema"]?["properties"]?["events"]
        #expect(events?["maxItems"] == 10)
        #expect(events?["items"]?["properties"]?["title"]?["maxLength"] == 200)
        #expect(events?["items"]?["properties"]?["source_message_ids"]?["maxItems"] == 5)

        // The assistant is rendered for a user of the database (AssistRenderTests), not over a fixture.
        let assistant = try await EvalChild.run(["prompts", "render", "--prompt", "assistant", "--fixture", "class-picnic",
                                                 "--fixtures", EvalTestSupport.fixturesPath, "--prompts", EvalTestSupport.promptsPath])
        #expect(assistant.status == 64)
        #expect(assistant.stderr.contains("--prompt assistant needs --user"), "\(assistant.stderr)")
        let unknown = try await EvalChild.run(["prompts", "render", "--prompt", "birthdays", "--fixture", "class-picnic",
                                               "--fixtures", EvalTestSupport.fixturesPath, "--prompts", EvalTestSupport.promptsPath])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("--prompt 'birthdays': not a prompt render knows") && unknown.stderr.contains("assistant"), "\(unknown.stderr)")
    }
}
