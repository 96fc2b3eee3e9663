import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import TestSupport
import Testing

/// A scan whose lease on a conversation is taken over mid-work (issue 13, item 4): the write is rolled back with
/// `ScanLeaseLost`, the conversation is reported apart (not as failed, nothing recorded against it), the others go on.
@Suite("Scan: a lost lease is its own outcome")
struct ScanLeaseLostTests {
    /// The rule-based provider, except that while answering for a victim conversation another scanner takes its
    /// lease over (as if this one's had expired): exactly what the scan finds when it comes to commit.
    struct LeaseThief: AnswerProvider {
        let pool: PostgresPool
        let victims: Set<String>
        var name: String { "rules" }
        func modelName(for prompt: Prompt) -> String { RulesAnswerProvider().modelName(for: prompt) }
        func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
            if victims.contains(request.input.conversationID) {
                try await pool.query(
                    "UPDATE scan_watermarks SET lease_owner = 'other-scanner', lease_expires_at = now() + interval '10 minutes' WHERE conversation_id = $1::uuid",
                    [request.input.conversationID])
            }
            return try await RulesAnswerProvider().answer(request)
        }
    }

    @Test("a conversation taken over mid-work writes nothing, is not failed, and is reported as a lost lease")
    func lostLeaseIsReportedNotFailed() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 4, active: 4, newMessages: 4, seed: 131)
            try await ScanHarness.load(workload, into: db)
            let ids = workload.conversations.map(\.id).sorted { $0.uuidString < $1.uuidString }
            let victims = Array(ids.prefix(2))
            try await db.pool.query("INSERT INTO scan_watermarks (conversation_id) SELECT id FROM conversations ON CONFLICT DO NOTHING")
            var before: [UUID: Reliability.WatermarkRow] = [:]
            for id in victims { before[id] = try await Reliability.watermark(db.pool, id) }

            let thief = LeaseThief(pool: db.pool, victims: Set(victims.map { $0.uuidString.lowercased() }))
            let engine = try ExtractionEngine(prompts: try Reliability.prompts(), provider: thief)
            let summary = try await Reliability.scan(db, engine) { $0.concurrency = 1 }

            #expect(summary.lostLeases == 2)
            #expect(Set(summary.lostLeaseConversations) == Set(victims))
            #expect(summary.failed == 0 && summary.failures.isEmpty)
            #expect(summary.conversations == 2)
            for id in victims {
                #expect(try await Reliability.aiRows(db.pool, conversation: id).isEmpty, "rows were written for \(id)")
                var after = try await Reliability.watermark(db.pool, id)
                #expect(after.leaseOwner == "other-scanner")
                #expect(after.failures == 0 && after.lastError == nil, "a lost lease recorded a failure: \(after)")
                after.leaseOwner = nil
                #expect(after == before[id], "the watermark moved")
            }
            let text = ScanReport.text(summary)
            #expect(text.contains("LEASE LOST on 2 conversations"), "\(text)")
            #expect(text.contains(victims[0].uuidString.lowercased()), "\(text)")
            #expect(!text.contains("FAILED"), "\(text)")

            // The other scanner dies; once its lease expires, a scan does the victims' work in full.
            try await db.pool.query("UPDATE scan_watermarks SET lease_expires_at = now() - interval '1 second' WHERE lease_owner = 'other-scanner'")
            let retry = try await Reliability.scan(db, try ScanClaimTests.rulesEngine())
            #expect(retry.conversations == 2 && retry.lostLeases == 0)
            var rows = 0
            for id in victims { rows += try await Reliability.aiRows(db.pool, conversation: id).count }
            #expect(rows > 0, "the workload gives the victims nothing to extract, so the first half proves nothing")
        }
    }

    @Test("the error names the conversation and the owner, and says nothing was written")
    func message() {
        let id = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let text = ScanLeaseLost(conversationID: id, owner: "host:42").description
        #expect(text.contains("00000000-0000-4000-8000-000000000001") && text.contains("host:42") && text.contains("nothing of this attempt was written"))
    }
}
