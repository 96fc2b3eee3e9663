import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// A member deletes a message while `extract` waits for the model (issue 47): the answer cites it, so its rows would
/// violate the messages foreign key (23503). The extraction reads the conversation again and asks once more instead
/// of failing.
@Suite("Reliability: a message deleted during an extraction")
struct DeletedMessageTests {
    @Test("the conversation is read again without it and the extraction succeeds; no row cites it")
    func deletedWhileTheModelWorks() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 1, active: 1, newMessages: 3, seed: 147)
            try await ScanHarness.load(workload, into: db)
            let conversation = workload.conversations[0]
            let gate = ReplyGate()
            let first = Locked(true)
            let server = try FakeOpenAIServer { request in
                let answer = ScanRequests.answer(request)
                let held = first.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                return held ? .held(gate, then: answer) : answer
            }
            defer { server.stop() }
            let service = ExtractService(pool: db.pool, engine: try ScanHarness.engine(server))
            let extraction = Task {
                try await service.run(conversationID: conversation.id, features: [.calendarEvents, .deadlines], dryRun: false, now: ScanHarness.now)
            }
            try await waitUntil(30, "the model is asked") { server.requests.count == 1 }
            // The newest message, which the held answer cites.
            let deleted: UUID = try await db.pool.query(
                "DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1) RETURNING id",
                [conversation.id])[0].decode("id")
            gate.open()

            let summary = try await extraction.value
            #expect(server.requests.count == 2, "asked once more, with the conversation read again")
            #expect((summary.items["calendar_events"] ?? 0) > 0, "\(summary.items)")
            let citing: Int = try await db.pool.query(
                "SELECT count(*) AS n FROM calendar_events WHERE message_id = $1 OR $1 = ANY(source_message_ids)", [deleted])[0].decode("n")
            #expect(citing == 0)
            let status: String = try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status")
            #expect(status == "succeeded")
        }
    }
}
