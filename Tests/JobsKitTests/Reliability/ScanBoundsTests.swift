import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// A scan under database faults (issue 14, items 2 and 3): killed connections cost at most the conversation they
/// served and are accounted for, and a row lock held on the scan's own bookkeeping row is waited on only as long as
/// the lock timeout.
@Suite("Reliability: killed connections and held locks")
struct ScanBoundsTests {
    /// The scan's pool under an application name of its own, so killing its sessions touches no other test.
    static func isolatedPool(_ db: TestDatabase, name: String) -> PostgresPool {
        var configuration = db.configuration
        configuration.applicationName = name
        return PostgresPool(configuration: configuration, maxConnections: 4, acquireTimeout: 10)
    }

    @Test("sessions killed again and again mid-scan: the scan finishes with a true summary, every failure is recorded or left to expire, and job_runs agrees")
    func killedConnectionsCostOnlyTheirConversation() async throws {
        try await TestDatabase.with(maxConnections: 4) { db in
            let workload = try ScanHarness.workload(conversations: 16, active: 16, newMessages: 3, seed: 83)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { .delay(0.05, then: ScanRequests.answer($0)) }
            defer { server.stop() }
            let engine = try Reliability.engine(server)
            let name = "scan-under-fire-\(UUID().uuidString.prefix(8))"
            let pool = Self.isolatedPool(db, name: name)
            var options = ScanHarness.options(concurrency: 3)
            options.owner = name

            let scan = Task { () -> Result<ScanService.Summary, any Error> in
                do { return .success(try await ScanService(pool: pool, engine: engine, options: options).run(now: Reliability.now)) }
                catch { return .failure(error) }
            }
            // Once work is under way, kill every session of the scan's pool, 12 times 0.1 s apart.
            try await waitUntil(20, "the scan's first model request") { !server.requests.isEmpty }
            var killed = 0
            for _ in 0..<12 {
                let rows = try await db.pool.query(
                    "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1", [name])
                killed += try rows[0].decode("n", as: Int.self)
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            let result = try await withTimeout(60, "the scan under fire") { await scan.value }
            await pool.shutdown()
            #expect(killed > 0, "the test killed sessions")
            let summary = try result.get()

            // Every conversation is committed, or its failure is recorded (lease released), or it is reported as
            // unrecorded (lease left to expire), or the run said it stopped early and left it untouched. Committed
            // means this run's watermark: the workload's conversations start with an earlier scan's.
            let unrecorded = Set(summary.unrecordedFailures.map(\.conversationID))
            var committed = 0, recordedFailures = 0, untouched = 0
            for conversation in workload.conversations {
                let mark = try await Reliability.watermark(db.pool, conversation.id)
                let runID = try await db.pool.query("SELECT run_id FROM scan_watermarks WHERE conversation_id = $1",
                                                    [conversation.id])[0].decode("run_id", as: UUID?.self)
                if runID == summary.runID && mark.failures == 0 && mark.leaseOwner == nil {
                    committed += 1
                } else if mark.failures == 0 && mark.leaseOwner == nil {
                    untouched += 1
                } else if mark.failures > 0 {
                    #expect(mark.lastError?.isEmpty == false, "a recorded failure says why")
                    #expect(mark.leaseOwner == nil, "a recorded failure releases its lease")
                    recordedFailures += 1
                } else if mark.leaseOwner != nil {
                    #expect(unrecorded.contains(conversation.id), "a held lease without a record is reported: \(mark)")
                }
            }
            #expect(summary.conversations == committed, "\(summary.failures)")
            #expect(summary.failed == recordedFailures + unrecorded.count)
            #expect(untouched == 0 || summary.stoppedEarly != nil, "\(untouched) conversations left untouched by a run that did not stop early")
            if summary.stoppedEarly == nil { #expect(summary.conversations + summary.failed == workload.conversations.count) }

            let run = try await db.pool.query(
                "SELECT status, conversations_processed AS p, conversations_failed AS f FROM job_runs WHERE id = $1", [summary.runID])[0]
            #expect(try run.decode("status", as: String.self) != "running")
            #expect(try run.decode("p", as: Int.self) == summary.conversations)
            #expect(try run.decode("f", as: Int.self) == summary.failed)

            // Leases expire (time passing, stood in for by an UPDATE): the next scan finishes every conversation.
            try await db.pool.query("UPDATE scan_watermarks SET lease_expires_at = now() - interval '1 second' WHERE lease_owner IS NOT NULL")
            let next = try await Reliability.scan(db, engine)
            #expect(next.failed == 0, "\(next.failures)")
            #expect(try await ScanHarness.scannedConversations(db) == Set(workload.conversations.map(\.id)))
        }
    }

    @Test("a row lock held on a claimed conversation's watermark: its failure write does not wait again, and the claim ends with the run")
    func heldWatermarkLockIsBounded() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 3, seed: 89)
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[1]
            // The victim's answers are slow, so the lock is taken after its claim and before its writes.
            let server = try FakeOpenAIServer { request in
                ScanRequests.conversation(request) == victim.name ? .delay(0.3, then: ScanRequests.answer(request)) : ScanRequests.answer(request)
            }
            defer { server.stop() }
            // A 0.3 s answer under the harness's 0.4 s timeout timed out on a loaded machine (the failure then named
            // the timeout, not the lock); 5 s keeps the delay's purpose without racing it.
            let engine = try ExtractionEngine(prompts: try Reliability.prompts(), provider: LLMAnswerProvider(
                client: Reliability.client(server, timeout: .seconds(5)), structuredOutput: .jsonSchema))
            let scan = Task { try await Reliability.scan(db, engine) { $0.lockTimeout = .seconds(1) } }
            try await waitUntil(20, "the victim's first request") {
                server.requests.contains { ScanRequests.conversation($0) == victim.name }
            }
            let holder = try await DatabaseFaultTests.LockHolder.lock(
                db, "SELECT 1 FROM scan_watermarks WHERE conversation_id = $1 FOR UPDATE", [victim.id])
            let result: Result<ScanService.Summary, any Error>
            do {
                // Held until the scan returns: without a bound on every statement it would wait for ever.
                result = .success(try await withTimeout(30, "a scan facing a held watermark lock") { try await scan.value })
            } catch {
                result = .failure(error)
            }
            await holder.release()
            let summary = try result.get()

            #expect(summary.conversations == 2)
            #expect(summary.failed == 1)
            #expect(summary.failures.first?.error.contains("lock timeout") == true, "\(summary.failures)")
            #expect(summary.unrecordedFailures.map(\.conversationID) == [victim.id], "the run says the failure could not be written")
            #expect(ScanReport.text(summary).contains("its claim ends with this run"))
            let mark = try await Reliability.watermark(db.pool, victim.id)
            #expect(mark.leaseOwner != nil, "the row could not be written")
            let expiry: Date = try await db.pool.query(
                "SELECT lease_expires_at FROM scan_watermarks WHERE conversation_id = $1", [victim.id])[0].decode("lease_expires_at")
            #expect(expiry > Date().addingTimeInterval(60), "the 600 s lease is still on the row")

            // The next scan takes it at once: the lease of a finished scan run is free.
            let next = try await Reliability.scan(db, engine)
            #expect(next.failed == 0 && next.conversations == 1, "\(next.failures)")
        }
    }

    @Test("every connection bounds its lock waits and statements (lock_timeout, statement_timeout), overridable")
    func connectionsCarryTheBounds() async throws {
        try await TestDatabase.with { db in
            let row = try await db.pool.query(
                "SELECT current_setting('lock_timeout') AS l, current_setting('statement_timeout') AS s")[0]
            #expect(try row.decode("l", as: String.self) == "30s")
            #expect(try row.decode("s", as: String.self) == "5min")

            var configuration = db.configuration
            configuration.lockTimeout = 0.25
            configuration.statementTimeout = nil
            let connection = try await PostgresConnection.connect(configuration)
            defer { connection.close() }
            let custom = try await connection.query("SELECT current_setting('lock_timeout') AS l")[0]
            #expect(try custom.decode("l", as: String.self) == "250ms")

            // A table lock held elsewhere (a row lock taken by SELECT ... FOR UPDATE): the wait ends at the bound.
            let holder = try await DatabaseFaultTests.LockHolder.lock(db, "SELECT 1 FROM scan_watermarks FOR UPDATE", [])
            var waited: (any Error)?
            do {
                try await connection.transaction { try await $0.query("LOCK TABLE scan_watermarks IN ACCESS EXCLUSIVE MODE") }
            } catch {
                waited = error
            }
            await holder.release()
            #expect((waited as? PostgresError)?.sqlState == .lockNotAvailable, "lock_not_available: \(String(describing: waited))")
            let environment = try PostgresConfiguration.fromEnvironment(["DATABASE_LOCK_TIMEOUT": "0", "DATABASE_STATEMENT_TIMEOUT": "12"])
            #expect(environment.lockTimeout == nil && environment.statementTimeout == 12)
        }
    }
}
