import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing

/// The database failing under a scan: a restart, a killed session, a lock that is never released. Every
/// conversation is committed whole or not at all, and the next run completes the work.
@Suite("Reliability: database faults during a scan")
struct DatabaseFaultTests {
    /// A session of the test's own holding row locks in an open transaction, like an app request that stalls.
    final class LockHolder: Sendable {
        let connection: PostgresConnection

        private init(_ connection: PostgresConnection) { self.connection = connection }

        static func lock(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable]) async throws -> LockHolder {
            let connection = try await PostgresConnection.connect(db.configuration)
            try await connection.query("BEGIN")
            try await connection.query(sql, binds)
            return LockHolder(connection)
        }

        func release() async {
            _ = try? await connection.query("ROLLBACK")
            connection.close()
        }
    }

    /// A workload, its victim conversation, and the server's good answers.
    static func workload() throws -> Workload { try ScanHarness.workload(conversations: 4, active: 4, newMessages: 4, seed: 43) }

    @Test("a session killed while it writes a conversation rolls all of it back; the next scan writes it")
    func sessionKilledMidTransaction() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try Self.workload()
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[1]
            let before = try await Reliability.watermark(db.pool, victim.id)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try Reliability.engine(server)
            // Events and priority flags cite the newest message, the deadline the oldest shown: locking every message
            // but the newest lets the first writes through and stops the transaction at its deadlines insert.
            let newest = try #require(workload.messages.filter { $0.conversationID == victim.id }.max { ($0.sentAt, $0.id.uuidString) < ($1.sentAt, $1.id.uuidString) })
            let holder = try await LockHolder.lock(db, "SELECT 1 FROM messages WHERE conversation_id = $1 AND id <> $2 FOR UPDATE", [victim.id, newest.id])
            let scan = Task { try await Reliability.scan(db, engine) }

            var blocked: (pid: Int32, query: String, wrote: Bool)?
            do {
                try await waitUntil(20, "the scan to block on the held lock") {
                    let rows = try await db.pool.query(
                        "SELECT pid, query, backend_xid IS NOT NULL AS wrote FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
                        [Int(holder.connection.backendPID)])
                    if let row = rows.first { blocked = (Int32(try row.decode("pid", as: Int.self)), try row.decode("query"), try row.decode("wrote")) }
                    return blocked != nil
                }
            } catch {
                await holder.release()
                _ = try? await scan.value
                throw error
            }
            let victimSession = try #require(blocked)
            #expect(victimSession.query.contains("INSERT INTO deadlines"), "\(victimSession.query)")
            #expect(victimSession.wrote, "the killed transaction had already written rows")
            try await db.pool.query("SELECT pg_terminate_backend($1)", [Int(victimSession.pid)])
            await holder.release()
            let summary = try await withTimeout(30, "the scan") { try await scan.value }

            #expect(summary.failed == 1)
            #expect(summary.failures.first?.conversationID == victim.id)
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id) == [], "the killed transaction left rows behind")
            let after = try await Reliability.watermark(db.pool, victim.id)
            #expect(after.position == before.position)
            #expect(after.failures == 1 && after.leaseOwner == nil)
            #expect(try await ScanHarness.scannedConversations(db) == Set(workload.conversations.map(\.id)).subtracting([victim.id]))

            let next = try await Reliability.scan(db, engine)
            #expect(next.failed == 0 && next.conversations == 1, "\(next.failures)")
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id).contains { $0.hasPrefix("deadline ") })
        }
    }

    @Test("a row lock held by another session fails that conversation after the lock timeout, not the scan")
    func heldLockTimesOut() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try Self.workload()
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[2]
            let before = try await Reliability.watermark(db.pool, victim.id)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try Reliability.engine(server)
            // An app session about to delete the conversation: every row referencing it must wait.
            let holder = try await LockHolder.lock(db, "SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", [victim.id])
            let result: Result<ScanService.Summary, any Error>
            do {
                let summary = try await withTimeout(20, "a scan facing a held lock") {
                    try await Reliability.scan(db, engine) { $0.lockTimeout = .seconds(1) }
                }
                result = .success(summary)
            } catch {
                result = .failure(error)
            }
            await holder.release()
            let summary = try result.get()

            #expect(summary.conversations == 3)
            #expect(summary.failed == 1)
            #expect(summary.failures.first?.conversationID == victim.id)
            #expect(summary.failures.first?.error.contains("lock timeout") == true, "\(summary.failures)")
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id) == [])
            let after = try await Reliability.watermark(db.pool, victim.id)
            #expect(after.position == before.position)
            #expect(after.failures == 1)
            #expect(after.lastError?.contains("lock timeout") == true)

            let next = try await Reliability.scan(db, engine)
            #expect(next.failed == 0 && next.conversations == 1, "\(next.failures)")
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id).isEmpty == false)
        }
    }

    @Test("the database restarted mid-scan: each conversation is whole or absent, and the next scan completes the work")
    func serverRestartedMidScan() async throws {
        let workload = try ScanHarness.workload(conversations: 8, active: 8, newMessages: 4, seed: 47)
        let server = try FakeOpenAIServer { .delay(0.1, then: ScanRequests.answer($0)) }
        defer { server.stop() }
        let engine = try Reliability.engine(server)
        // What an uninterrupted scan writes, per conversation, on the shared test server.
        let reference = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await Reliability.scan(db, engine)
            try #require(summary.failed == 0, "\(summary.failures)")
            var perConversation: [UUID: [String]] = [:]
            for conversation in workload.conversations { perConversation[conversation.id] = try await Reliability.aiRows(db.pool, conversation: conversation.id) }
            return (all: try await Reliability.outcome(db.pool), perConversation: perConversation)
        }

        try await PrivatePostgresCluster.with { cluster in
            let pool = PostgresPool(configuration: try await cluster.createDatabase("faults"), maxConnections: 4, acquireTimeout: 10)
            do {
                _ = try await WorkloadLoader(pool: pool).load(workload)
                let scan = Task { () -> Result<ScanService.Summary, any Error> in
                    do {
                        var options = ScanHarness.options()
                        options.owner = "interrupted-scanner"
                        return .success(try await ScanService(pool: pool, engine: engine, options: options).run(now: Reliability.now))
                    } catch {
                        return .failure(error)
                    }
                }
                try await waitUntil(30, "the first committed conversation") {
                    try await pool.query("SELECT count(*) AS n FROM scan_watermarks WHERE run_id IS NOT NULL")[0].decode("n", as: Int.self) > 0
                }
                try await cluster.restart()
                let interrupted = try await withTimeout(60, "the interrupted scan") { await scan.value }
                if case .success(let summary) = interrupted { #expect(summary.conversations < 8, "the restart landed after the scan") }

                // Whole or absent: a conversation with a moved watermark has exactly its reference rows, any other none.
                let scanned = Set(try await pool.query("SELECT conversation_id FROM scan_watermarks WHERE run_id IS NOT NULL").map { try $0.decode("conversation_id", as: UUID.self) })
                #expect(!scanned.isEmpty && scanned.count < 8)
                for conversation in workload.conversations {
                    let rows = try await Reliability.aiRows(pool, conversation: conversation.id)
                    #expect(rows == (scanned.contains(conversation.id) ? reference.perConversation[conversation.id] : []),
                            "\(conversation.name) is half-written after the restart")
                }

                // Claims of the interrupted scan would block their conversations for the lease (600 s by default):
                // the test expires them, as time passing would.
                try await pool.query("UPDATE scan_watermarks SET lease_expires_at = now() - interval '1 second' WHERE lease_owner IS NOT NULL")
                let final = try await ScanService(pool: pool, engine: engine, options: ScanHarness.options()).run(now: Reliability.now)
                #expect(final.failed == 0, "\(final.failures)")
                #expect(final.conversations == 8 - scanned.count)
                #expect(try await Reliability.outcome(pool) == reference.all)
                await pool.shutdown()
            } catch {
                await pool.shutdown()
                throw error
            }
        }
    }
}
