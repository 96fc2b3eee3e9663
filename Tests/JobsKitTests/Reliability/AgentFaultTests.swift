import AgentRuntime
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// The proactive assistant (AssistService: the real loop, client, tools and stores) against a model that calls
/// tools badly or fails mid-run. Runs end with a recorded outcome; traces are kept; nothing crashes.
@Suite("Reliability: agent faults")
struct AgentFaultTests {
    static let now = FixedTime.wednesdayNoon
    /// Priya is in the class group and the birthday chat, not in the carpool or Maria's chat with Alex.
    static let priya = DemoDataset.userIDs.priya

    static let findings: JSONValue = [
        "summary": "Nothing urgent.", "conflicts": [], "pending_rsvps": [], "near_deadlines": [], "priority_messages": [], "suggested_actions": [],
    ]

    static func with(_ body: (TestDatabase, FakeOpenAIServer, AssistService) async throws -> Void) async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let service = AssistService(pool: db.pool, client: Reliability.client(server, timeout: Reliability.faultTimeout), prompts: try Reliability.prompts())
            try await body(db, server, service)
        }
    }

    static func count(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.pool.query(sql, binds)[0].decode(at: 0, as: Int.self)
    }

    @Test("unknown tools, broken or hostile arguments become error results; the run still answers and writes nothing")
    func badToolCallsBecomeErrorResults() async throws {
        try await Self.with { db, server, service in
            let othersConversation = DemoDataset.conversationIDs.coParents.uuidString.lowercased()
            server.enqueue(
                .toolCalls([
                    (id: "c1", name: "delete_all_reminders", arguments: "{}"),
                    (id: "c2", name: "create_reminder", arguments: #"{"title": "Pay the fee", "remind_at": "#),
                    (id: "c3", name: "create_reminder", arguments: #"{"title": "Pay the fee", "user_id": "00000000-de01-4000-8000-000000000001"}"#),
                    (id: "c4", name: "get_recent_messages", arguments: #"{"conversation_id": "\#(othersConversation)", "days": 7, "limit": 10}"#),
                    (id: "c5", name: "check_conflicts", arguments: #"{"event_id": "'; DROP TABLE reminders; --", "date": null, "start_time": null, "end_time": null}"#),
                    (id: "c6", name: "create_reminder", arguments: #"{"title": "Too late", "remind_at": "2020-01-01T09:00:00Z", "priority": "high", "deadline_id": null}"#),
                ]),
                .chat(content: Self.findings.serialized()))

            let summary = try await service.run(userID: Self.priya, now: Self.now)

            #expect(summary.stopReason == .completed)
            #expect(summary.findings != nil)
            #expect(summary.remindersCreated == 0)
            #expect(try await Self.count(db, "SELECT count(*) FROM reminders") == 0)
            let traces = try await db.pool.query("SELECT tool_calls FROM agent_traces WHERE run_id = $1 ORDER BY step", [summary.runID])
            #expect(traces.count == 2)
            let calls = try traces[0].decode("tool_calls", as: JSONValue.self).arrayValue ?? []
            #expect(calls.map { $0["status"]?.stringValue ?? "?" }
                    == ["unknown_tool", "invalid_json", "invalid_arguments", "tool_failed", "tool_failed", "tool_failed"])
            // The other user's conversation was reported exactly like one that does not exist.
            #expect(calls[3]["result"]?.stringValue?.contains("no conversation with id") == true, "\(calls[3])")
            #expect(!(calls.map { $0.serialized() }.joined().contains("Dentist")))
            let status: String = try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status")
            #expect(status == "succeeded")
            #expect(try await Self.count(db, "SELECT count(*) FROM users") == 8, "the users table is intact")
        }
    }

    @Test("a model fault mid-run ends it with a recorded failure; the trace and the step-1 side effect are kept",
          arguments: [ModelFault.serverError, .connectionReset, .timeout, .truncatedJSON, .emptyChoices, .refusal])
    func modelFaultMidRunIsRecorded(_ fault: ModelFault) async throws {
        try await Self.with { db, server, service in
            server.enqueue(.toolCalls([(id: "c1", name: "create_reminder",
                                        arguments: #"{"title": "Field trip fee", "remind_at": "2026-03-05T09:00:00-05:00", "priority": "high", "deadline_id": null}"#)]))
            // Three attempts for the retryable faults; the others fail at the first.
            server.enqueue(fault.reply, fault.reply, fault.reply)

            let summary = try await service.run(userID: Self.priya, now: Self.now)

            #expect(summary.findings == nil)
            #expect(summary.stopReason.description.hasPrefix(fault == .refusal ? "refused" : "error"), "\(summary.stopReason)")
            #expect(summary.remindersCreated == 1)
            let run = try #require(try await db.pool.query("SELECT status, error FROM job_runs WHERE id = $1", [summary.runID]).first)
            #expect(try run.decode("status", as: String.self) == "failed")
            #expect(try run.decode("error", as: String?.self)?.isEmpty == false)
            #expect(try await Self.count(db, "SELECT count(*) FROM agent_traces WHERE run_id = $1", [summary.runID]) == 2)
            #expect(try await Self.count(db, "SELECT count(*) FROM assistant_runs WHERE run_id = $1 AND stop_reason <> 'completed'", [summary.runID]) == 1)
            #expect(try await Self.count(db, "SELECT count(*) FROM reminders WHERE user_id = $1 AND origin = 'assistant'", [Self.priya]) == 1)
        }
    }
}
