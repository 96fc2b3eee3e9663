import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Scan: concurrent scanners")
struct ScanConcurrencyTests {
    @Test func twoScansAtOnceProcessEveryConversationExactlyOnce() async throws {
        try await TestDatabase.with(maxConnections: 8) { db in
            let workload = try ScanHarness.workload(conversations: 12, active: 12, newMessages: 4)
            try await ScanHarness.load(workload, into: db)
            // Every watermark move is logged, so a conversation committed twice would show up twice.
            try await db.pool.query("CREATE TABLE watermark_moves (conversation_id uuid NOT NULL, run_id uuid NOT NULL)")
            try await db.pool.query(
                """
                CREATE FUNCTION log_watermark_move() RETURNS trigger AS $$
                BEGIN INSERT INTO watermark_moves VALUES (NEW.conversation_id, NEW.run_id); RETURN NEW; END $$ LANGUAGE plpgsql
                """)
            try await db.pool.query(
                """
                CREATE TRIGGER log_watermark_move AFTER UPDATE OF run_id ON scan_watermarks
                FOR EACH ROW WHEN (NEW.run_id IS NOT NULL) EXECUTE FUNCTION log_watermark_move()
                """)
            // A short delay per answer keeps both scanners busy at the same time.
            let server = try FakeOpenAIServer { .delay(0.02, then: ScanRequests.answer($0)) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)

            async let first = ScanHarness.scan(db, engine, ScanHarness.options(owner: "scanner-a"))
            async let second = ScanHarness.scan(db, engine, ScanHarness.options(owner: "scanner-b"))
            let (a, b) = try await (first, second)

            #expect(a.failed + b.failed == 0)
            #expect(a.conversations + b.conversations == 12)
            let moves = try await db.pool.query("SELECT conversation_id, run_id FROM watermark_moves")
            let moved: [UUID] = try moves.map { try $0.decode("conversation_id") }
            #expect(moved.count == 12)
            #expect(Set(moved) == Set(workload.conversations.map(\.id)))
            let runs: Set<UUID> = Set(try moves.map { try $0.decode("run_id") })
            #expect(runs.isSubset(of: [a.runID, b.runID]))

            var perConversation: [String: Int] = [:]
            for request in server.requests { perConversation[ScanRequests.conversation(request) ?? "?", default: 0] += 1 }
            #expect(perConversation == Dictionary(uniqueKeysWithValues: workload.conversations.map { ($0.name, 5) }))
        }
    }
}
