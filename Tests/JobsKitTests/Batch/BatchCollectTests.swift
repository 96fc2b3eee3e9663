import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

@Suite(.serialized) struct BatchCollectTests {
    /// What the synchronous scan does with the same data and answers: its rows, watermarks and request bodies.
    struct SyncResult: Sendable {
        let rows: [String]
        let lastMessages: [UUID: UUID?]
        let bodies: [String]
    }

    static func synchronousScan() async throws -> SyncResult {
        try await BatchHarness.with { h in
            let summary = try await h.syncScan(mode: .perFeature)
            #expect(summary.conversations == 4 && summary.failed == 0)
            return SyncResult(
                rows: try await h.rows(), lastMessages: try await h.watermarks().mapValues(\.lastMessageID),
                bodies: h.server.requests.filter { $0.path == "/v1/chat/completions" }.compactMap { $0.json?.serialized(sortedKeys: true) }.sorted())
        }
    }

    @Test func collectAfterCompletionWritesWhatTheSynchronousScanWritesAndOnlyOnce() async throws {
        let sync = try await Self.synchronousScan()
        #expect(!sync.rows.isEmpty)
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let submitted = try await h.submit(mode: .perFeature)
            // The same requests the synchronous scan sent, body for body.
            #expect(try h.uploadedLines().compactMap { $0["body"]?.serialized(sortedKeys: true) }.sorted() == sync.bodies)

            h.server.batches.complete()
            let first = try #require(try await h.collect().first)
            #expect(first.remoteStatus == "completed" && first.status == .collected)
            #expect(first.applied == 4 && first.failed == 0)
            #expect(first.requestCounts == BatchRequestCounts(total: submitted.requests, completed: submitted.requests, failed: 0))
            #expect(first.usage.promptTokens == 200 * submitted.requests)
            #expect(try await h.rows() == sync.rows)
            let marks = try await h.watermarks()
            #expect(marks.mapValues(\.lastMessageID) == sync.lastMessages)
            #expect(marks.values.allSatisfy { $0.leaseOwner == nil && $0.leaseExpires == nil && $0.failures == 0 })
            // Provenance: the batch's run, finished with its counts.
            let run = try await h.db.pool.query("SELECT kind, status, conversations_processed, requests FROM job_runs WHERE id = $1", [submitted.runID])[0]
            #expect(try run.decode("kind", as: String.self) == "batch" && run.decode("status", as: String.self) == "succeeded")
            #expect(try run.decode("conversations_processed", as: Int.self) == 4 && run.decode("requests", as: Int.self) == submitted.requests)
            #expect(try await h.count("SELECT count(*) AS n FROM calendar_events WHERE run_id = $1", [submitted.runID]) == 4)

            // Collecting again (all, or this batch by id) applies nothing and touches no row.
            let before = try await h.touched()
            let requestsBefore = h.server.requests.count
            #expect(try await h.collect().isEmpty)
            let again = try #require(try await h.collect(submitted.batchID).first)
            #expect(again.applied == 0 && again.failed == 0 && again.status == .collected)
            #expect(try await h.touched() == before)
            #expect(h.server.requests.count == requestsBefore)  // a collected batch is not even polled
            #expect(try await h.count("SELECT count(*) AS n FROM llm_batch_items WHERE status = 'applied'") == submitted.requests)
        }
    }

    @Test func anInvalidAnswerFailsOnlyItsConversationAndKeepsItsWatermark() async throws {
        // The birthday conversation's decisions answer breaks the schema; everything else is fine.
        let reply: @Sendable (RecordedRequest) -> ScriptedReply = { request in
            let isBirthday = request.body.range(of: Data("Jump Zone".utf8)) != nil
            if isBirthday && BatchHarness.feature(of: request) == "decisions" {
                return .chat(content: "{\"decisions\": [{\"decision\": 7}]}")
            }
            return GenericAnswers.reply(request)
        }
        try await BatchHarness.with(reply: reply) { h in
            let submitted = try await h.submit(mode: .perFeature)
            let summary = try #require(try await h.collect().first)
            #expect(summary.applied == 3 && summary.failed == 1)
            let failure = try #require(summary.failures.first)
            #expect(failure.conversationID == BatchHarness.birthday)
            #expect(failure.error.contains(":decisions:") && failure.error.contains("$.decisions[0]"))

            let marks = try await h.watermarks()
            let birthday = try #require(marks[BatchHarness.birthday])
            #expect(birthday.lastMessageID == nil && birthday.leaseOwner == nil && birthday.failures == 1)
            #expect(marks.filter { $0.key != BatchHarness.birthday }.values.allSatisfy { $0.lastMessageID != nil && $0.leaseOwner == nil })
            #expect(try await h.count("SELECT count(*) AS n FROM calendar_events WHERE conversation_id = $1", [BatchHarness.birthday]) == 0)
            #expect(try await h.count("SELECT count(*) AS n FROM calendar_events") == 3)
            // The failing request is named; the conversation's other requests are failed with it.
            let item = try await h.db.pool.query(
                "SELECT custom_id, error FROM llm_batch_items WHERE conversation_id = $1 AND error IS NOT NULL", [BatchHarness.birthday])
            #expect(item.count == 1)
            #expect(try item.first?.decode("custom_id", as: String.self).hasSuffix(":decisions:0-3") == true)
            #expect(try await h.count("SELECT count(*) AS n FROM llm_batch_items WHERE conversation_id = $1 AND status = 'failed'",
                                      [BatchHarness.birthday]) == 5)
            let run = try await h.db.pool.query("SELECT status FROM job_runs WHERE id = $1", [submitted.runID])[0]
            #expect(try run.decode("status", as: String.self) == "partial")

            // The next synchronous scan retries just that conversation.
            let scan = try await h.syncScan(mode: .perFeature)
            #expect(scan.conversations + scan.failed == 1)
        }
    }

    @Test func anExpiredBatchReleasesItsConversations() async throws {
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let submitted = try await h.submit(mode: .perFeature)
            h.server.batches.end(status: "expired")
            let summary = try #require(try await h.collect().first)
            #expect(summary.remoteStatus == "expired" && summary.status == .expired)
            #expect(summary.applied == 0 && summary.failed == 4)
            #expect(summary.failures.allSatisfy { $0.error.contains("no answer in the batch (status expired)") })
            #expect(try await h.rows().isEmpty)
            #expect(try await h.watermarks().values.allSatisfy { $0.leaseOwner == nil && $0.lastMessageID == nil })
            let listing = try await BatchStatusService(pool: h.db.pool).list()
            #expect(listing.first { $0.id == submitted.batchID }?.status == .expired)
            #expect(listing.first { $0.id == submitted.batchID }?.failed == 4)
            // Released conversations go to the next scan.
            let scan = try await h.syncScan(mode: .perFeature)
            #expect(scan.conversations == 4)
        }
    }

    @Test func anErrorLineFailsItsConversation() async throws {
        let reply: @Sendable (RecordedRequest) -> ScriptedReply = { request in
            request.body.range(of: Data("Jump Zone".utf8)) != nil && BatchHarness.feature(of: request) == "rsvps"
                ? .error(status: 500, message: "the model is overloaded", type: "server_error")
                : GenericAnswers.reply(request)
        }
        try await BatchHarness.with(reply: reply) { h in
            _ = try await h.submit(mode: .perFeature)
            let batch = try #require(h.server.batches.batches.first)
            #expect(batch.errorFileID != nil && batch.outputFileID != nil)
            let summary = try #require(try await h.collect().first)
            #expect(summary.applied == 3 && summary.failed == 1)
            #expect(summary.failures.first?.error.contains("HTTP 500: the model is overloaded") == true)
            #expect(try await h.watermarks()[BatchHarness.birthday]?.lastMessageID == nil)
        }
    }

    @Test func theNextBatchTakesOnlyNewMessagesAndAdvancesChatWithoutCuesAtOnce() async throws {
        try await BatchHarness.with { h in
            _ = try await h.submit(mode: .perFeature)
            #expect(try await h.collect().first?.applied == 4)
            let carpool = DemoDataset.conversationIDs.carpool
            let chatter = UUID(), question = UUID()
            try await h.db.pool.query(
                "INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, 'lol 😂', $4), ($5, $6, $7, $8, $4)",
                [chatter, BatchHarness.birthday, DemoDataset.userIDs.dan, BatchHarness.now.addingTimeInterval(-600),
                 question, carpool, DemoDataset.userIDs.maria, "Can we move practice to Friday at 5pm?"])

            let next = try await h.submit(mode: .perFeature)
            #expect(next.status == .submitted)
            #expect(next.conversations == 1 && next.advanced == 1 && next.skippedMessages == 1 && next.newMessages == 2)
            // The chatter moved the birthday watermark at submit time, with no request.
            #expect(try await h.watermarks()[BatchHarness.birthday]?.lastMessageID == chatter)
            let upload = try #require(h.server.batches.uploads.last)
            let lines = String(decoding: upload.content, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 5)
            #expect(lines.allSatisfy { $0.contains(carpool.uuidString.lowercased()) && $0.contains("move practice to Friday") })

            let collected = try #require(try await h.collect().first)
            #expect(collected.applied == 1 && collected.failed == 0)
            let marks = try await h.watermarks()
            #expect(marks[carpool]?.lastMessageID == question && marks[carpool]?.leaseOwner == nil)
        }
    }
}

/// Batch mode in the default request mode: one combined request per conversation window, collected into the rows the
/// synchronous combined scan writes. The per-feature batch is `BatchCollectTests` (it states `.perFeature`).
@Suite(.serialized) struct BatchCombinedTests {
    @Test func aCombinedBatchSendsOneRequestPerWindowAndWritesWhatTheCombinedScanWrites() async throws {
        let sync = try await BatchHarness.with { h in
            let summary = try await h.syncScan(mode: .combined)
            #expect(summary.conversations == 4 && summary.failed == 0 && summary.requests == 4, "\(summary.failures)")
            return (rows: try await h.rows(),
                    bodies: h.server.requests.filter { $0.path == "/v1/chat/completions" }.compactMap { $0.json?.serialized(sortedKeys: true) }.sorted())
        }
        #expect(sync.rows.contains { $0.hasPrefix("calendar_events ") } && sync.rows.contains { $0.hasPrefix("deadlines ") })
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let submitted = try await h.submit(mode: .combined)
            #expect(submitted.conversations == 4 && submitted.requests == 4)
            let lines = try h.uploadedLines()
            // The requests the synchronous combined scan sent, body for body, each one combined request.
            #expect(lines.compactMap { $0["body"]?.serialized(sortedKeys: true) }.sorted() == sync.bodies)
            #expect(lines.allSatisfy { $0["custom_id"]?.stringValue?.contains(":combined:") == true })
            #expect(try await h.count("SELECT count(*) AS n FROM llm_batch_items WHERE feature = 'combined'") == 4)
            let recorded = try await h.db.pool.query("SELECT prompts::text AS p FROM llm_batches WHERE id = $1", [submitted.batchID])[0]
            #expect(try recorded.decode("p", as: String.self).contains("\"combined\""))

            h.server.batches.complete()
            let collected = try #require(try await h.collect().first)
            #expect(collected.applied == 4 && collected.failed == 0, "\(collected.failures)")
            #expect(try await h.rows() == sync.rows)
        }
    }

    @Test func anInvalidPartOfACombinedAnswerFailsItsConversationAndNamesTheFeature() async throws {
        try await BatchHarness.with(lifecycle: .holdInProgress, reply: { request in
            // Every combined answer's deadlines part lacks its list: the whole conversation fails, nothing half-written.
            guard case .object(var answer)? = try? JSONValue.parse(GenericAnswers.replyContent(request)) else { return GenericAnswers.reply(request) }
            answer["deadlines"] = .object(JSONObject())
            return .chat(content: JSONValue.object(answer).serialized(), usage: FakeUsage(prompt: 200, completion: 30))
        }) { h in
            _ = try await h.submit(mode: .combined)
            h.server.batches.complete()
            let collected = try #require(try await h.collect().first)
            #expect(collected.applied == 0 && collected.failed == 4)
            #expect(collected.failures.allSatisfy { $0.error.contains("deadlines") }, "\(collected.failures)")
            #expect(try await h.count("SELECT count(*) AS n FROM calendar_events") == 0)
        }
    }
}
