import Foundation
import JobsKit
import Logging
import Postgres
import ServiceLifecycle
import TestSupport
import Testing

/// The scan as a service (issue 13, item 5): a graceful shutdown stops the claiming and finishes the conversations in
/// flight; a cancellation rolls them back and releases them. Either way `run()` returns only after the work has
/// ended, and no conversation is left half-written.
@Suite("Scan: graceful shutdown and cancellation")
struct ScanShutdownTests {
    static func withScene(_ body: (HeldScanScene) async throws -> Void) async throws {
        try await HeldScanScene.with(conversations: 6, concurrency: 2, seed: 151, owner: "shutdown-test", body)
    }

    /// Waits until both workers are inside a conversation (a model request of two conversations has arrived).
    static func waitForTwoInFlight(_ gate: ReplyGate) async throws {
        try await waitUntil(30, "two conversations in flight") { Set(gate.held.compactMap(ScanRequests.conversation)).count >= 2 }
    }

    /// Conversations whose watermark this scan moved, and every conversation with AI rows: a conversation with rows
    /// but no committed watermark would be half-written.
    static func committedAndWithRows(_ db: TestDatabase) async throws -> (committed: Set<UUID>, withRows: Set<UUID>) {
        let committed = try await ScanHarness.scannedConversations(db)
        let rows = try await db.pool.query(
            """
            SELECT conversation_id AS c FROM calendar_events UNION SELECT conversation_id FROM priority_messages
            UNION SELECT conversation_id FROM decisions UNION SELECT conversation_id FROM deadlines
            UNION SELECT conversation_id FROM rsvp_tracking
            """)
        return (committed, Set(try rows.map { try $0.decode("c", as: UUID.self) }))
    }

    @Test("SIGTERM-style graceful shutdown: no new claims, in-flight conversations finish, the run is marked partial")
    func gracefulShutdownFinishesInFlightWork() async throws {
        try await Self.withScene { scene in
            let job = ScanJob(scene.service, now: ScanHarness.now)
            let group = ServiceGroup(configuration: .init(
                services: [.init(service: job, successTerminationBehavior: .gracefullyShutdownGroup)], logger: Logger(label: "test")))
            let running = Task { try await group.run() }
            try await Self.waitForTwoInFlight(scene.gate)
            await group.triggerGracefulShutdown()
            scene.gate.open()
            try await withTimeout(60, "the scan service to return") { try await running.value }
            // Sampled the moment run() has returned: later commits would show up as a difference below.
            let atReturn = try await Self.committedAndWithRows(scene.db)

            let summary = try #require(await job.summary)
            #expect(summary.stoppedEarly == ScanService.shutdownReason)
            #expect(summary.conversations == 2, "the two in-flight conversations finish; nothing more is claimed")
            #expect(summary.failed == 0 && summary.interrupted == 0)
            #expect(atReturn.committed.count == 2)
            #expect(atReturn.withRows.isSubset(of: atReturn.committed), "rows without a committed watermark: half-written")
            #expect(!atReturn.withRows.isEmpty)
            #expect(try await scene.db.pool.query("SELECT 1 FROM scan_watermarks WHERE lease_owner IS NOT NULL").isEmpty)
            let run = try await scene.db.pool.query("SELECT status, error FROM job_runs WHERE id = $1", [summary.runID])[0]
            #expect(try run.decode("status", as: String.self) == "partial")
            #expect(try run.decode("error", as: String?.self)?.contains("shutdown") == true)
            #expect(ScanReport.text(summary).contains("STOPPED EARLY: a shutdown was requested"))
            #expect(try await Self.committedAndWithRows(scene.db) == atReturn)
        }
    }

    @Test("cancelled mid-scan: in-flight conversations are rolled back and released, and run() returns after they end")
    func cancellationRollsBackInFlightWork() async throws {
        try await Self.withScene { scene in
            let service = scene.service
            let running = Task { try await service.run(now: ScanHarness.now) }
            try await Self.waitForTwoInFlight(scene.gate)
            running.cancel()
            let summary = try await withTimeout(60, "the cancelled scan to return") { try await running.value }
            let atReturn = try await Self.committedAndWithRows(scene.db)

            #expect(summary.stoppedEarly == ScanService.cancelledReason)
            // The two with the model, and each worker's read-ahead conversation if it was claimed by then.
            #expect((2...4).contains(summary.interrupted), "\(summary)")
            #expect(summary.conversations == 0 && summary.failed == 0)
            #expect(atReturn.committed.isEmpty && atReturn.withRows.isEmpty)
            // Interrupted is not failed: no failure is recorded against the conversations, and their leases are free.
            #expect(try await scene.db.pool.query("SELECT 1 FROM scan_watermarks WHERE failures > 0 OR lease_owner IS NOT NULL").isEmpty)
            let run = try await scene.db.pool.query("SELECT status, error FROM job_runs WHERE id = $1", [summary.runID])[0]
            #expect(try run.decode("status", as: String.self) == "failed")
            #expect(try run.decode("error", as: String?.self) == ScanService.cancelledReason)

            // The next scan does the whole work.
            scene.gate.open()
            let again = try await ScanHarness.scan(scene.db, try ScanHarness.engine(scene.server))
            #expect(again.conversations == 6 && again.failed == 0)
        }
    }
}
