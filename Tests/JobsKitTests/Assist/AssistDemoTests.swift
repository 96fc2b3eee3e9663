import AgentRuntime
import Extractors
import Foundation
import JSONKit
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport

/// The proactive assistant on the demo data: a rule-based scan fills the calendar, then a scripted model
/// drives the real loop, client and tools.
@Suite struct AssistDemoTests {
    /// Wednesday 2026-03-04, noon in New York: the demo's soccer game and birthday party are both on Saturday March 7.
    static let now = ISO8601DateFormatter().date(from: "2026-03-04T17:00:00Z")!
    static let maria = DemoDataset.userIDs.maria

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static func prompts() throws -> PromptLibrary { try PromptLibrary.load(directory: root.appendingPathComponent("prompts")) }

    /// Three steps: look for conflicts and pending RSVPs in parallel, create a reminder, answer.
    static func script(_ server: FakeOpenAIServer) {
        let findings: JSONValue = [
            "summary": "Saturday's soccer game overlaps Emma's party, and you have not answered the party RSVP.",
            "conflicts": [["description": "Soccer game 10-12 overlaps the party 11-1 on Saturday", "event_ids": ["e1", "e2"]]],
            "pending_rsvps": [["rsvp_id": "r1", "note": "Answer Jenny by Thursday"]],
            "near_deadlines": [], "suggested_actions": ["Ask Alex to take Sofia to the game"],
        ]
        server.enqueue(
            .toolCalls([(id: "call_1", name: "check_conflicts", arguments: #"{"event_id":null,"date":null,"start_time":null,"end_time":null}"#),
                        (id: "call_2", name: "get_pending_rsvps", arguments: "{}")]),
            .toolCalls([(id: "call_3", name: "create_reminder",
                         arguments: #"{"title":"Answer Emma's party RSVP","remind_at":"2026-03-05T09:00:00-05:00","priority":"high","deadline_id":null}"#)]),
            .chat(content: findings.serialized()))
    }

    @Test func findsThePlantedConflictAndCreatesOneReminderOnce() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Self.now))
            let rules = try ExtractionEngine(prompts: try Self.prompts(), provider: RulesAnswerProvider())
            let scan = try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: Self.now)
            #expect(scan.failed == 0)

            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let client = OpenAIClient(configuration: LLMConfiguration(apiKey: "sk-test", baseURL: server.baseURL))
            let service = AssistService(pool: db.pool, client: client, prompts: try Self.prompts())

            Self.script(server)
            let first = try await service.run(userID: Self.maria, now: Self.now)
            #expect(first.stopReason == "completed")
            #expect(first.steps == 3)
            #expect(first.remindersCreated == 1)
            #expect(first.findings?["conflicts"]?[0]?["event_ids"]?.arrayValue?.count == 2)

            // The conflict tool, run for real on the scanned demo data, found the game and the party.
            let second = try #require(server.requests.dropFirst().first?.json?["messages"]?.arrayValue)
            let conflictResult = try #require(second.first { $0["tool_call_id"] == "call_1" }?["content"]?.stringValue)
            let conflicts = try JSONValue.parse(conflictResult)
            #expect(conflicts["pair_count"] == 1)
            let titles = [conflicts["pairs"]?[0]?["first"]?["title"]?.stringValue ?? "", conflicts["pairs"]?[0]?["second"]?["title"]?.stringValue ?? ""]
            #expect(titles.contains { $0.lowercased().contains("birthday") })
            #expect(titles.contains { $0.lowercased().contains("game") })
            // Both tool calls of step 1 ran and their results came back in the model's order.
            #expect(second.filter { $0["role"] == "tool" }.map { $0["tool_call_id"] } == ["call_1", "call_2"])
            let rsvps = try #require(second.first { $0["tool_call_id"] == "call_2" }?["content"]?.stringValue)
            #expect(rsvps.contains("Emma"))

            let stored = try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE user_id = $1 AND origin = 'assistant'", [Self.maria])
            #expect(try stored[0].decode("n", as: Int.self) == 1)
            let traces = try await db.pool.query("SELECT count(*) AS n FROM agent_traces WHERE run_id = $1", [first.runID])
            #expect(try traces[0].decode("n", as: Int.self) == 3)
            let finding = try await db.pool.query("SELECT summary, reminders_created FROM assistant_findings WHERE run_id = $1", [first.runID])
            #expect(try finding[0].decode("reminders_created", as: Int.self) == 1)

            // A second, identical run creates nothing new.
            Self.script(server)
            let again = try await service.run(userID: Self.maria, now: Self.now)
            #expect(again.remindersCreated == 0)
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE user_id = $1 AND origin = 'assistant'", [Self.maria])[0].decode("n", as: Int.self) == 1)
            let lastRequest = try #require(server.requests.last?.json?["messages"]?.arrayValue)
            let duplicate = try #require(lastRequest.first { $0["tool_call_id"] == "call_3" }?["content"]?.stringValue)
            #expect(try JSONValue.parse(duplicate)["created"] == false)
        }
    }

    @Test func unknownUserIsAClearErrorAndSendsNothing() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let service = AssistService(pool: db.pool, client: OpenAIClient(configuration: LLMConfiguration(baseURL: server.baseURL)),
                                        prompts: try Self.prompts())
            let missing = UUID()
            let error = await #expect(throws: ExtractionError.self) { try await service.run(userID: missing, now: Self.now) }
            #expect(error?.description.contains(missing.uuidString.lowercased()) == true)
            #expect(server.requests.isEmpty)
        }
    }
}
