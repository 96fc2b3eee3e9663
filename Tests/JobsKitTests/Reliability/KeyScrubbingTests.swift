import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation

/// A server that echoes the `Authorization` header inside successful (200, schema-valid) answers cannot get the key
/// to disk: not into the eval cache, not into the rows a scan writes (issue 14, item 5).
@Suite("Reliability: key scrubbing")
struct KeyScrubbingTests {
    static let apiKey = "sk-test-ECHOED-0987654321"
    static let needles = ["0987654321", "ECHOED-0987"]

    /// Schema-valid answers carrying the echoed header: verbatim in an event's title, and hidden behind a `\u0073`
    /// escape inside the structured-output JSON (it becomes the key only once that JSON is parsed).
    /// `auth` is what the server echoes (default: the header as it got it).
    static func echoingAnswer(_ request: RecordedRequest, auth: String? = nil) -> ScriptedReply {
        let auth = auth ?? request.header("authorization") ?? "none"
        let lines = ScanRequests.messageLines(request)
        guard let newest = lines.last?["id"] else { return .error(status: 400, message: "no <messages> block") }
        switch ScanRequests.feature(request) {
        case "calendar_events":
            let answer: JSONValue = ["events": [[
                "title": .string("Echo \(auth)"), "date": "2026-03-10", "time": nil, "end_time": nil, "location": "ESCAPED",
                "description": "", "category": "other", "confidence": 0.7, "date_phrase": nil,
                "evidence": .string(String((lines.last?["text"]?.stringValue ?? "").prefix(40))), "source_message_ids": [newest],
            ]]]
            let hidden = "\\u0073" + apiKey.dropFirst()
            return .chat(content: answer.serialized().replacingOccurrences(of: "ESCAPED", with: hidden), usage: FakeUsage(prompt: 100, completion: 20))
        case "priority_messages":
            let answer: JSONValue = ["messages": [["message_id": newest, "priority": "high", "reason": .string("Key was \(auth)"), "action_required": false,
                                                   "evidence": .string(String((lines.last?["text"]?.stringValue ?? "").prefix(40)))]]]
            return .chat(content: answer.serialized(), usage: FakeUsage(prompt: 100, completion: 20))
        case "decisions": return .chat(content: #"{"decisions": []}"#)
        case "rsvps": return .chat(content: #"{"rsvps": []}"#)
        case "deadlines": return .chat(content: #"{"deadlines": []}"#)
        default: return .chat(content: CombinedSchema.emptyAnswer(request.json?["response_format"]?["json_schema"]?["schema"] ?? [:]).serialized())
        }
    }

    static func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for needle in needles {
            #expect(!text.contains(needle), "\(what) contains the key", sourceLocation: sourceLocation)
        }
    }

    @Test("eval: an answer echoing the key is cached without it")
    func evalCacheHoldsNoKey() async throws {
        let server = try FakeOpenAIServer { request in
            .chat(content: #"{"events": [], "echo": "\#(request.header("authorization") ?? "none")"}"#)
        }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scrub-cache-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = EvalRunOptions()
        options.provider = .openai
        options.fixturesPath = RepositoryPaths.root.appendingPathComponent("evals/fixtures/class-picnic.yaml").path
        options.promptsPath = Reliability.promptsURL.path
        options.features = [.calendarEvents]
        options.cacheDirectory = directory
        options.llm = LLMConfiguration(apiKey: Self.apiKey, baseURL: server.baseURL)
        _ = try await EvalSession.run(options)

        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty, "the eval wrote its cache")
        var cached = ""
        for file in files { cached += String(decoding: try Data(contentsOf: file), as: UTF8.self) }
        Self.expectClean(cached, "the eval cache")
        #expect(cached.contains(SecretScrubbing.replacement), "the server echoed the key and the cache holds the redaction")
        #expect(server.requests.contains { $0.header("authorization") == "Bearer \(Self.apiKey)" })
    }

    @Test("scan: schema-valid answers echoing the key store rows without it")
    func rowsHoldNoKey() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 71)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { Self.echoingAnswer($0) }
            defer { server.stop() }
            let client = Reliability.client(server, apiKey: Self.apiKey)
            let engine = try ExtractionEngine(prompts: try Reliability.prompts(),
                                              provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
            let summary = try await Reliability.scan(db, engine) { $0.preFilter = false }
            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.rowsInserted > 0)

            let rows = try await SecretLeakTests.everyRow(db)
            Self.expectClean(rows, "the database")
            #expect(rows.contains(SecretScrubbing.replacement), "the echoed key was stored redacted")
            #expect(server.requests.contains { $0.header("authorization") == "Bearer \(Self.apiKey)" })
        }
    }
}
