import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import PromptKit
import TestSupport
import Testing
import Evaluation

/// Full eval runs against a fake OpenAI server that answers from the fixtures' labels.
@Suite("Eval run with a fake model")
struct EvalRunTests {
    @Test("a full run scores the labels, writes three reports, lists failures, and a second run is served from the cache")
    func fullRunThenCached() async throws {
        let fixturesDirectory = try EvalTestSupport.fixturesWithMarkup()
        let fixtures = try FixtureLoader.load(path: fixturesDirectory.path)
        var answers = LabelledAnswers(fixtures)
        answers.emptyFeatures = ["priority_messages"]
        answers.invalid = ["chit-chat-jokes/calendar_events"]
        let server = try FakeOpenAIServer { [answers] in answers.reply($0) }
        defer { server.stop() }
        let cache = try EvalTestSupport.temporaryDirectory("cache")
        let options = EvalTestSupport.options(fixtures: fixturesDirectory.path, server: server, cache: cache)

        let first = try await EvalSession.run(options)
        let report = first.report
        let main = try #require(report.main)
        #expect(report.variants.map(\.id) == ["llm", "rules"])
        #expect(report.variants.map(\.role) == [.main, .rulesBaseline])
        #expect(report.fixtureCount == fixtures.count)

        // Answers built from the labels go through the real engine and mapping and score perfectly...
        for feature in [ExtractionFeature.calendarEvents, .decisions, .rsvps, .deadlines] {
            let score = try #require(main.score.features[feature])
            #expect(score.fp == 0 && score.fn == 0, "\(feature.rawValue): \(score.fp) FP, \(score.fn) FN")
            #expect(score.tp == fixtures.map { $0.expected.count(of: feature) }.reduce(0, +))
            for (field, accuracy) in score.fieldAccuracy {
                #expect(accuracy.correct == accuracy.total, "\(feature.rawValue).\(field): \(accuracy.correct)/\(accuracy.total)")
            }
        }
        // ...except the feature answered with nothing, which only misses.
        let priority = try #require(main.score.features[.priorityMessages])
        #expect(priority.tp == 0 && priority.fp == 0 && priority.fn > 0)
        #expect(main.score.micro.f1 < 0.99)

        // The invalid answer failed after one re-ask; the run went on and says where.
        #expect(main.errors.count == 1, "\(main.errors.map { "\($0.fixture) \($0.feature.rawValue): \($0.message.prefix(120))" })")
        #expect(main.errors.first?.fixture == "chit-chat-jokes")
        #expect(main.errors.first?.feature == .calendarEvents)
        #expect(main.errors.first?.message.contains("does not match the schema") == true)
        #expect(main.reasks >= 1)

        // Requests, tokens and cache counters agree with what the server saw.
        let sent = server.requests.count
        #expect(sent > 0)
        #expect(main.requests == sent)
        let cacheCounts = try #require(main.cache)
        #expect(cacheCounts.misses == sent && cacheCounts.hits == 0)
        #expect(cacheCounts.networkUsage == TokenUsage(promptTokens: 100 * sent, completionTokens: 20 * sent, cachedPromptTokens: 40 * sent))
        #expect(main.prompts[.calendarEvents]?.version == 4)

        // The rule-based provider ran beside it, without a model.
        let rules = try #require(report.variants.last)
        #expect(rules.cache == nil && rules.requests == 0)

        // Reports: three files; JSON with per-feature and micro numbers; HTML with charts and escaped fixture text.
        let out = try EvalTestSupport.temporaryDirectory("report")
        let files = try EvalReportWriter.write(report, fixtures: first.fixtures, to: out)
        #expect(files.map(\.lastPathComponent) == ["report.json", "report.md", "report.html"])
        for file in files { #expect(FileManager.default.fileExists(atPath: file.path)) }
        let json = try JSONValue.parse(try Data(contentsOf: out.appendingPathComponent("report.json")))
        let llm = try #require(json["variants"]?.arrayValue?.first)
        #expect(llm["score"]?["micro"]?["f1"]?.doubleValue == main.score.micro.f1)
        #expect(llm["score"]?["features"]?["calendar_events"]?["f1"]?.doubleValue == 1)
        #expect(llm["cache"]?["misses"]?.integerValue == Int64(sent))
        // The failed extraction's two answers (first try and re-ask) were not used.
        #expect(llm["usage"]?["prompt_tokens"]?.integerValue == Int64(100 * (sent - 2)))
        #expect(llm["prompts"]?["rsvps"]?["version"]?.integerValue == 4)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<svg"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(html.contains("&lt;b&gt;Bake sale&lt;/b&gt;"))
        #expect(html.contains("&amp; bring &quot;cookies&quot;"))
        #expect(html.components(separatedBy: "<script").count == 2, "only the report's own index script")
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<b>Bake"))
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(!markdown.contains("<script"))
        #expect(markdown.contains("the model's answer does not match the schema"), "escaped as Markdown, not as HTML")
        #expect(!markdown.contains("&#39;") && !markdown.contains("&lt;"))

        // The API key travels in a header only: never in a cache file.
        let cached = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".json") }
        #expect(!cached.isEmpty)
        for name in cached {
            #expect(!(try String(contentsOfFile: cache.appendingPathComponent(name).path, encoding: .utf8)).contains(EvalTestSupport.apiKey))
        }

        // The gate: micro F1 below --fail-under fails the run, at or above passes.
        // One extraction failed: the run fails unless --max-failures allows it.
        #expect(EvalGates.failures(report, failUnder: nil, maxRegression: nil).count == 1)
        #expect(EvalGates.failures(report, failUnder: nil, maxRegression: nil, maxFailures: 1).isEmpty)
        // With --fail-under, a feature that predicted nothing where items were expected fails too.
        #expect(EvalGates.failures(report, failUnder: 0.99, maxRegression: nil, maxFailures: 1).count == 2)
        #expect(EvalGates.failures(report, failUnder: main.score.micro.f1, maxRegression: nil, maxFailures: 1)
                == ["priority_messages: llm predicted nothing for \(priority.fn) expected items (precision undefined)"])

        // Second run: same requests, all from the cache, same numbers.
        let second = try await EvalSession.run(options)
        #expect(server.requests.count == sent, "the second run reached the server")
        let again = try #require(second.report.main)
        #expect(again.cache?.hits == sent)
        #expect(again.cache?.misses == 0)
        #expect(again.score == main.score)
        #expect(again.usage == main.usage)
    }

    @Test("--compare runs a second prompt version side by side and only re-asks the compared feature")
    func compareVariant() async throws {
        let root = try EvalTestSupport.temporaryDirectory("prompts")
        let prompts = root.appendingPathComponent("prompts"), schemas = root.appendingPathComponent("schemas")
        try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent("schemas"), to: schemas)
        try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent("prompts"), to: prompts)
        let v2 = try String(contentsOf: prompts.appendingPathComponent("calendar_events.v4.yaml"), encoding: .utf8)
        let v3 = v2.replacingOccurrences(of: "\nversion: 4\n", with: "\nversion: 5\n")
            .replacingOccurrences(of: "You find the calendar events", with: "VERSION-THREE: You find the calendar events")
        #expect(v3.contains("VERSION-THREE") && v3.contains("\nversion: 5\n"))
        try v3.write(to: prompts.appendingPathComponent("calendar_events.v5.yaml"), atomically: true, encoding: .utf8)

        let fixtures = try EvalTestSupport.realFixtures()
        let labelled = LabelledAnswers(fixtures)
        // Version 3 "forgets" every event.
        let server = try FakeOpenAIServer { request in
            let system = request.json?["messages"]?.arrayValue?.first?["content"]?.stringValue ?? ""
            return system.contains("VERSION-THREE") ? .chat(content: #"{"events": []}"#) : labelled.reply(request)
        }
        defer { server.stop() }
        var options = EvalTestSupport.options(fixtures: EvalTestSupport.fixturesPath, server: server,
                                              cache: try EvalTestSupport.temporaryDirectory("cache"))
        options.promptsPath = prompts.path
        options.features = [.calendarEvents, .rsvps]
        options.compareVersions = [.calendarEvents: 5]

        let report = try await EvalSession.run(options).report
        #expect(report.variants.map(\.id) == ["llm", "llm-compare", "rules"])
        let main = try #require(report.variants.first), compare = try #require(report.variants.dropFirst().first)
        #expect(main.prompts[.calendarEvents]?.version == 4, "the main variant runs the pinned version (active.yaml), not the newest")
        #expect(compare.prompts[.calendarEvents]?.version == 5)
        #expect(compare.role == .compare)
        #expect(compare.ranFeatures == [.calendarEvents])
        #expect(compare.prompts[.rsvps]?.version == 4)
        let hashes = (main.prompts[.calendarEvents]?.sha256, compare.prompts[.calendarEvents]?.sha256)
        #expect(hashes.0?.count == 64 && hashes.1?.count == 64 && hashes.0 != hashes.1, "each version's content hash is in the report")
        #expect(main.score.features[.calendarEvents]?.f1 == 1 && compare.score.features[.calendarEvents]?.recall == 0)

        // The same run again: identical requests are served from the cache, so the variants cost nothing.
        let cached = try await EvalSession.run(options).report
        let again = try #require(cached.variants.dropFirst().first)
        #expect(again.cache?.hits == again.requests && again.requests > 0)

        // Pin the main run to version 1 and compare against 3 (fresh cache, so every request is counted).
        options.promptVersions = [.calendarEvents: 1]
        options.cacheDirectory = try EvalTestSupport.temporaryDirectory("cache")
        let pinned = try await EvalSession.run(options).report
        let a = try #require(pinned.variants.first), b = try #require(pinned.variants.dropFirst().first)
        #expect(a.prompts[.calendarEvents]?.version == 1 && b.prompts[.calendarEvents]?.version == 5)
        #expect(a.score.features[.calendarEvents]?.f1 == 1)
        #expect(b.score.features[.calendarEvents]?.recall == 0)
        #expect(b.score.features[.rsvps] == a.score.features[.rsvps], "unchanged features are the main variant's answers")
        let twos = server.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("VERSION-THREE") }.count
        let withMessages = fixtures.filter { !$0.messages.isEmpty }.count
        #expect(twos == 2 * withMessages, "one version-3 request per fixture in each run")
        #expect(pinned.summaryText().contains("llm-compare"))
        #expect(EvalHTML.render(pinned, fixtures: fixtures).contains("llm-compare"))

        // Grounding counts per feature, in every form of the report: the labelled answers quote exactly.
        let grounding = try #require(a.grounding?[.calendarEvents])
        #expect(grounding.exact > 0 && grounding.aligned == 0 && grounding.dropped == 0)
        #expect(pinned.summaryText().split(separator: "\n").contains {
            $0.contains("calendar_events") && $0.hasSuffix("exact \(grounding.exact), aligned 0, re-cited 0, dropped 0, model dates kept 0")
        })
        let html = EvalHTML.render(pinned, fixtures: fixtures)
        #expect(html.contains("<h2>Grounding</h2>") && html.contains("<td class=\"n\">\(grounding.exact)</td>"))
        let json = String(decoding: try JSONEncoder().encode(pinned), as: UTF8.self)
        #expect(json.contains("\"exact\":\(grounding.exact)") && json.contains("\"aligned\":0"))
    }

    @Test("prompts render prints exactly the body the eval run sends")
    func renderMatchesWhatIsSent() async throws {
        let fixture = try FixtureLoader.loadFile(EvalTestSupport.fixturesPath + "/birthday-invite-pending.yaml")
        let server = try FakeOpenAIServer { [answers = LabelledAnswers([fixture])] in answers.reply($0) }
        defer { server.stop() }
        var options = EvalTestSupport.options(fixtures: EvalTestSupport.fixturesPath + "/birthday-invite-pending.yaml", server: server,
                                              cache: try EvalTestSupport.temporaryDirectory("cache"))
        options.features = [.rsvps]
        _ = try await EvalSession.run(options)
        let sent = try #require(server.requests.first)
        #expect(server.requests.count == 1)

        let library = try PromptLibrary.load(directory: URL(fileURLWithPath: EvalTestSupport.promptsPath))
        // The loopback server is not OpenAI, so the run sends the schema's caps (OPENAI_SCHEMA_BOUNDS' default there).
        let rendered = try await PromptRequestCapture.body(feature: .rsvps, version: nil, fixture: fixture, prompts: library,
                                                           structuredOutput: .jsonSchema,
                                                           schemaBounds: LLMConfiguration(baseURL: server.baseURL).schemaBounds)
        #expect(rendered.serialized() == String(decoding: sent.body, as: UTF8.self))
        #expect(rendered["response_format"]?["json_schema"]?["schema"]?["properties"]?["rsvps"]?["maxItems"] == 5)
        #expect(rendered["response_format"]?["json_schema"]?["name"]?.stringValue == "rsvps")

        let jsonObject = try await PromptRequestCapture.body(feature: .rsvps, version: 1, fixture: fixture, prompts: library,
                                                             structuredOutput: .jsonObject, tokenField: .maxTokens)
        #expect(jsonObject["response_format"]?["type"]?.stringValue == "json_object")
        #expect(jsonObject["max_tokens"] != nil && jsonObject["max_completion_tokens"] == nil)
        await #expect(throws: ExtractionError.self) {
            _ = try await PromptRequestCapture.body(feature: .rsvps, version: 9, fixture: fixture, prompts: library, structuredOutput: .jsonSchema)
        }
    }
}
