import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// How the scan claims work (issue 14, item 6): `--limit` is exact whatever the concurrency, conversations held
/// under another scanner's lease are reported instead of "nothing new", and killed runs are marked abandoned.
@Suite("Scan: claims, limits and abandoned runs")
struct ScanClaimTests {
    static func rulesEngine() throws -> ExtractionEngine {
        try ExtractionEngine(prompts: try Reliability.prompts(), provider: RulesAnswerProvider())
    }

    static func scan(_ db: TestDatabase, _ configure: (inout ScanOptions) -> Void = { _ in }) async throws -> ScanService.Summary {
        var options = ScanHarness.options()
        configure(&options)
        return try await ScanService(pool: db.pool, engine: try rulesEngine(), options: options).run(now: Reliability.now)
    }

    @Test("--limit 1 with 8 workers processes exactly one conversation; --limit 3 exactly three")
    func limitIsExactWithConcurrency() async throws {
        try await TestDatabase.with(maxConnections: 10) { db in
            let workload = try ScanHarness.workload(conversations: 12, active: 12, newMessages: 2, seed: 97)
            try await ScanHarness.load(workload, into: db)
            let one = try await Self.scan(db) { $0.concurrency = 8; $0.limit = 1 }
            #expect(one.conversations + one.failed == 1)
            let three = try await Self.scan(db) { $0.concurrency = 8; $0.limit = 3 }
            #expect(three.conversations + three.failed == 3)
            #expect(try await ScanHarness.scannedConversations(db).count == 4)
        }
    }

    @Test("conversations pending under another scanner's lease are counted with the lease's end, not called 'nothing new'")
    func leasedElsewhereIsReported() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 2, seed: 101)
            try await ScanHarness.load(workload, into: db)
            try await db.pool.query("INSERT INTO scan_watermarks (conversation_id) SELECT id FROM conversations ON CONFLICT DO NOTHING")
            // A killed scanner's claims, still valid for ten minutes.
            try await db.pool.query(
                "UPDATE scan_watermarks SET lease_owner = 'dead-host:42', lease_expires_at = now() + interval '10 minutes'")
            let summary = try await Self.scan(db)
            #expect(summary.conversations + summary.failed == 0)
            #expect(summary.leasedElsewhere == 3)
            let until = try #require(summary.leasedUntil)
            #expect(until > Date().addingTimeInterval(500))
            let text = ScanReport.text(summary)
            #expect(!text.contains("Nothing new"), "\(text)")
            #expect(text.contains("3 pending conversations are held by another scanner's lease until"), "\(text)")
        }
    }

    @Test("a scan run killed before finishing (still 'running', no heartbeat or live lease) is marked abandoned by the next scan")
    func killedRunsAreMarkedAbandoned() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 2, seed: 103)
            try await ScanHarness.load(workload, into: db)
            let recorder = JobRunRecorder(pool: db.pool)
            let dead = try await recorder.start(.scan, provider: "rules", model: nil, options: ["lease_seconds": 60])
            let alive = try await recorder.start(.scan, provider: "rules", model: nil, options: ["lease_seconds": 60])
            // The dead run's heartbeat stopped a moment ago; the live one's runs until its lease is up.
            try await db.pool.query("UPDATE job_runs SET started_at = now() - interval '1 hour', heartbeat_at = now() - interval '5 minutes', alive_until = now() - interval '1 second' WHERE id = $1", [dead])
            // The live run claimed a conversation a moment ago and holds its lease.
            try await db.pool.query("UPDATE job_runs SET started_at = now() - interval '1 hour', heartbeat_at = now() WHERE id = $1", [alive])

            let summary = try await Self.scan(db)
            #expect(summary.abandonedRuns == 1)
            #expect(ScanReport.text(summary).contains("Marked 1 earlier scan run abandoned"))
            let statuses = Dictionary(uniqueKeysWithValues: try await db.pool.query(
                "SELECT id, status FROM job_runs WHERE id = ANY($1::uuid[])", [[dead, alive]]).map {
                    (try $0.decode("id", as: UUID.self), try $0.decode("status", as: String.self))
                })
            #expect(statuses[dead] == "abandoned")
            #expect(statuses[alive] == "running")
            #expect(try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status", as: String.self) == "succeeded")
        }
    }
}
