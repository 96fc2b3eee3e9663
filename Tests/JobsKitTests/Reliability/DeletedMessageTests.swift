import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI
import NIOConcurrencyHelpers

/// A member deletes a message while `extract` waits for the model (issue 47): the answer cites it, so its rows would
/// violate the messages foreign key (23503). The extraction reads the conversation again and asks once more instead
/// of failing.
@Suite("Reliability: a message deleted during an extraction")
struct DeletedMessageTests {
    @Test("the conversation is read again without it and the extraction succeeds; no row cites it")
    func deletedWhileTheModelWorks() async throws {
        try await TestDatabase.with { db in
            // The demo's birthday conversation: small enough for one window, so one request until the message goes.
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: ScanHarness.now))
            let conversation = DemoDataset.conversationIDs.birthday
            let gate = ReplyGate()
            let holding = NIOLockedValueBox(true)
            let server = try FakeOpenAIServer { request in
                let answer = ScanRequests.answer(request)
                return holding.withLockedValue { $0 } ? .held(gate, then: answer) : answer
            }
            defer { server.stop() }
            let service = ExtractService(pool: db.pool, engine: try ScanHarness.engine(server))
            let ended = NIOLockedValueBox(false)
            let extraction = Task {
                defer { ended.withLockedValue { $0 = true } }
                return try await service.run(conversationID: conversation, features: [.calendarEvents], dryRun: false,
                                             now: ScanHarness.now)
            }
            try await waitUntil(30, "the model is asked") { server.requests.count >= 1 || ended.withLockedValue { $0 } }
            if ended.withLockedValue({ $0 }) { Issue.record("the extraction ended before the model answered: \(await extraction.result)") }
            // The newest message, which the held answer cites.
            let row = try await db.pool.query(
                "DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1) RETURNING id, content",
                [conversation])[0]
            let (deleted, text): (UUID, String) = (try row.decode("id"), try row.decode("content"))
            #expect(server.requests.count == 1)
            holding.withLockedValue { $0 = false }
            gate.open()

            let summary = try await extraction.value
            #expect(server.requests.count == 2, "asked once more, with the conversation read again")
            let texts = { (request: RecordedRequest) in ScanRequests.messageLines(request).compactMap { $0["text"]?.stringValue } }
            #expect(texts(server.requests[0]).contains(text), "the first request showed the message")
            #expect(!texts(server.requests[1]).contains(text) && !texts(server.requests[1]).isEmpty, "the second did not")
            #expect(summary.written != nil)
            let citing: Int = try await db.pool.query(
                "SELECT count(*) AS n FROM calendar_events WHERE message_id = $1 OR $1 = ANY(source_message_ids)", [deleted])[0].decode("n")
            #expect(citing == 0)
            let status: String = try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status")
            #expect(status == "succeeded")
        }
    }
}
