import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import PromptKit
import TestSupport
import Testing
import JobsCLI
import NIOConcurrencyHelpers

/// A bad night (issue 48 item 2): half the conversations fail three different ways (an answer off its schema, an
/// HTTP 500 with the server's complaint, a timeout), and the on-call operator finds each conversation's cause and
/// what the model said with the CLI alone: `runs show` of the scan, `quarantine show` of each conversation. Played
/// against the scripted loopback server and real Postgres, read through the binary.
@Suite("a bad night, read with the CLI alone", .serialized)
struct BadNightTests {
    enum Fate: String, Sendable { case fine, offSchema, serverError, timeout }

    /// What the model "says" when it goes off its schema: chatty text, then a half-hearted JSON.
    static let chatter = "Sure! Here are the events I found in this conversation:\n- Soccer practice on Tuesday\n{\"events\": \"see above\"}"
    static let serverComplaint = "CUDA error: out of memory while decoding"

    /// The `Conversation:` line of the last user message holding one (a re-ask ends with the complaint; the examples come first).
    static func conversation(_ request: RecordedRequest) -> String {
        for message in (request.json?["messages"]?.arrayValue ?? []).reversed() where message["role"]?.stringValue == "user" {
            let text = message["content"]?.stringValue ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Conversation: ") }) { return String(line.dropFirst("Conversation: ".count)) }
        }
        return "?"
    }

    @Test("each failed conversation's cause and the model's text are in runs show and quarantine show")
    func operatorFindsEachCause() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 8, active: 8, newMessages: 3, seed: 48), into: db)
            // Each conversation's fate, by the order the server first sees it: four fine, two off-schema, one 500, one timeout.
            let plan: [Fate] = [.fine, .fine, .fine, .fine, .offSchema, .offSchema, .serverError, .timeout]
            let fates = NIOLockedValueBox<[String: Fate]>([:])
            let server = try FakeOpenAIServer { request in
                let name = Self.conversation(request)
                let fate = fates.withLockedValue { seen in
                    if let fate = seen[name] { return fate }
                    let fate = plan[min(seen.count, plan.count - 1)]
                    seen[name] = fate
                    return fate
                }
                switch fate {
                case .fine: return ScanRequests.answer(request)
                case .offSchema: return .chat(content: Self.chatter)
                case .serverError: return .status(500, body: #"{"error":{"message":"\#(Self.serverComplaint)","type":"server_error"}}"#,
                                                  headers: ["Content-Type": "application/json"])
                case .timeout: return .delay(4, then: ScanRequests.answer(request))
                }
            }
            defer { server.stop() }
            let client = server.client(timeout: .seconds(1), retry: FakeOpenAIServer.quickRetries(2), maxConcurrency: 8)
            let prompts = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
            let engine = try ExtractionEngine(prompts: prompts, provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
            let summary = try await ScanHarness.scan(db, engine, ScanHarness.options(concurrency: 4))
            #expect(summary.conversations == 4 && summary.failed == 4, "\(summary.failures.map(\.error))")
            let byName = fates.withLockedValue { $0 }
            let names = try await db.pool.query("SELECT id, name FROM conversations").reduce(into: [UUID: String]()) {
                $0[try $1.decode("id")] = try $1.decode("name")
            }
            func fate(_ id: UUID) -> Fate? { names[id].flatMap { byName[$0] } }

            // runs show: every failed conversation with its cause; the off-schema ones with the model's own words.
            let shown = try await JobsBinary.run(["runs", "show", summary.runID.postgresValue], db)
            #expect(shown.code == 0, "\(shown.stderr)")
            let detail = try await JobsBinary.json(RunHistory.Detail.self, ["runs", "show", summary.runID.postgresValue], db)
            #expect(detail.failures.count == 4)
            for failure in detail.failures {
                let id = try #require(failure.conversationID)
                #expect(shown.stdout.contains("- conversation \(id.postgresValue)"), "\(shown.stdout)")
                switch fate(id) {
                case .offSchema:
                    #expect(failure.error.contains("does not match the schema"), "\(failure.error)")
                    // The first answer and the re-ask's, of the combined request and of the per-feature ones it fell back to.
                    #expect((failure.answers?.count ?? 0) >= 2 && failure.answers?.contains { $0.attempt == 2 } == true)
                    #expect(failure.answers?.allSatisfy { $0.text == Self.chatter } == true)
                case .serverError:
                    #expect(failure.error.contains("HTTP 500") && failure.error.contains(Self.serverComplaint), "\(failure.error)")
                case .timeout:
                    #expect(failure.error.contains("timed out"), "\(failure.error)")
                default:
                    Issue.record("a conversation that was answered failed: \(failure.error)")
                }
            }
            #expect(shown.stdout.contains("first answer (") && shown.stdout.contains("answer to the re-ask ("), "\(shown.stdout)")
            #expect(shown.stdout.contains("  | Sure! Here are the events I found in this conversation:"), "\(shown.stdout)")
            #expect(shown.stdout.contains("HTTP 500 from the LLM server: \(Self.serverComplaint)"))
            #expect(shown.stdout.contains("timed out after 1 seconds"), "\(shown.stdout)")

            // quarantine show of one off-schema conversation: its last error and what the model said.
            let offSchema = try #require(detail.failures.first { $0.conversationID.flatMap(fate) == .offSchema }?.conversationID)
            let quarantine = try await JobsBinary.run(["quarantine", "show", offSchema.postgresValue], db)
            #expect(quarantine.code == 0, "\(quarantine.stderr)")
            #expect(quarantine.stdout.contains("does not match the schema"), "\(quarantine.stdout)")
            #expect(quarantine.stdout.contains("| Sure! Here are the events"), "\(quarantine.stdout)")
            #expect(!quarantine.stdout.contains("unexpected character") || quarantine.stdout.contains("| Sure!"))
        }
    }

    @Test("an answer re-asked that then passed is kept in the run's record too, and runs show prints it")
    func reaskedAnswersAreKept() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 48), into: db)
            let server = try FakeOpenAIServer { request in
                let messages = request.json?["messages"]?.arrayValue ?? []
                guard messages.last?["content"]?.stringValue?.hasPrefix("Your answer is not valid") == true else {
                    return .chat(content: Self.chatter)
                }
                // The re-ask: answered as the original request would have been.
                var original = request
                var object = request.json?.objectValue ?? JSONObject()
                object["messages"] = .array(Array(messages.dropLast(2)))
                original.json = .object(object)
                return ScanRequests.answer(original)
            }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            #expect(summary.failed == 0 && summary.conversations == 2, "\(summary.failures.map(\.error))")
            let detail = try await JobsBinary.json(RunHistory.Detail.self, ["runs", "show", summary.runID.postgresValue], db)
            #expect(detail.reasked.count == 2 && detail.reasked.allSatisfy { $0.answers?.first?.text == Self.chatter }, "\(detail.reasked)")
            let shown = try await JobsBinary.run(["runs", "show", summary.runID.postgresValue], db)
            #expect(shown.stdout.contains("re-asked, then answered") && shown.stdout.contains("| Sure! Here are the events"), "\(shown.stdout)")
        }
    }
}
