import Extractors
import Foundation
import JobsKit
import Postgres
import Synchronization
import Testing
import TestSupport

/// A scan that loses its database (a server of the test's own, stopped mid-scan): it returns its summary instead
/// of throwing, says its run could not be recorded, and once the database is back the next run closes its row with
/// the conversations it committed. A short outage is bridged: closing the row is retried on a fresh connection.
@Suite("Runs: a lost database")
struct DatabaseOutageRunTests {
    @Test func aScanThatLosesTheDatabaseStillSummarizesAndItsRowCountsWhatItCommitted() async throws {
        try await PrivatePostgresCluster.with { cluster in
            let configuration = try await cluster.createDatabase("outage")
            let pool = PostgresPool(configuration: configuration, maxConnections: 4)
            _ = try await WorkloadLoader(pool: pool).load(try ScanHarness.workload(conversations: 6, active: 6, newMessages: 3, seed: 241))
            let answered = Mutex(0)
            let server = try FakeOpenAIServer { request in
                let n = answered.withLock { count in
                    count += 1
                    return count
                }
                return n <= 2 ? ScanRequests.answer(request) : .delay(3, then: ScanRequests.answer(request))
            }
            defer { server.stop() }
            var options = ScanHarness.options(concurrency: 1)
            options.features = [.calendarEvents]
            let service = ScanService(pool: pool, engine: try ScanHarness.engine(server), options: options)
            let scan = Task { try await service.run(now: ScanHarness.now) }
            let watcher = PostgresPool(configuration: configuration, maxConnections: 1)
            try await waitUntil(60, "two conversations committed") {
                try await watcher.query("SELECT count(*) AS n FROM scan_watermarks WHERE run_id IS NOT NULL")[0].decode("n", as: Int.self) == 2
            }
            await watcher.shutdown()
            try await cluster.stop()
            let summary = try await withTimeout(90, "the scan to return") { try await scan.value }
            #expect(summary.conversations == 2)
            #expect(summary.runRecordError != nil)
            #expect(ScanReport.text(summary).contains("RUN NOT RECORDED"), "\(ScanReport.text(summary))")
            try await cluster.startAgain()

            // Its heartbeat has stopped; once its lease is over, the next run closes it with what it committed.
            let after = PostgresPool(configuration: configuration, maxConnections: 2)
            #expect(try await after.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status", as: String.self) == "running")
            try await after.query("UPDATE job_runs SET alive_until = now() - interval '1 second' WHERE id = $1", [summary.runID])
            let recorder = JobRunRecorder(pool: after)
            let next = try await recorder.start(.eval, provider: "rules", model: nil)
            try await recorder.finish(next, JobRunRecorder.Outcome(status: .succeeded))
            let row = try await after.query("SELECT status, conversations_processed FROM job_runs WHERE id = $1", [summary.runID])[0]
            #expect(try row.decode("status", as: String.self) == "abandoned")
            #expect(try row.decode("conversations_processed", as: Int.self) == 2)
            await after.shutdown()
            await pool.shutdown()
        }
    }

    @Test func closingARunBridgesAShortOutage() async throws {
        try await PrivatePostgresCluster.with { cluster in
            let configuration = try await cluster.createDatabase("bridge")
            let pool = PostgresPool(configuration: configuration, maxConnections: 2)
            let recorder = JobRunRecorder(pool: pool)
            let id = try await recorder.start(.extract, provider: "rules", model: nil)
            try await cluster.stop()
            var outcome = JobRunRecorder.Outcome(status: .succeeded)
            outcome.conversationsProcessed = 1
            let finishing = Task { try await recorder.finish(id, outcome) }
            try await Task.sleep(for: .seconds(2))
            try await cluster.startAgain()
            try await withTimeout(60, "the run to be closed") { try await finishing.value }
            let row = try await pool.query("SELECT status, conversations_processed FROM job_runs WHERE id = $1", [id])[0]
            #expect(try row.decode("status", as: String.self) == "succeeded")
            #expect(try row.decode("conversations_processed", as: Int.self) == 1)
            await pool.shutdown()
        }
    }
}
