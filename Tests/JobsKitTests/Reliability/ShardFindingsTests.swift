import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// The documented Kubernetes recipe from outside: `scan --shard i/N` (and identical scans at once) as child processes
/// on one generated workload, the rules provider, the proactive pass after extraction. Together they must leave exactly
/// the findings one scan leaves: the same rows, the same fingerprints. Before issue 35 two shards lost about a
/// quarter: each shard's pass only took the users hashed to its shard, and a user looked at before another shard had
/// written her rows was never looked at again.
@Suite("Reliability: shards and concurrent scans lose no finding", .serialized)
struct ShardFindingsTests {
    /// The bench workload's shape (`messageai-bench workload --days 7 --seed 42`), smaller, dated up to now: the scan
    /// and its pass run on the real clock.
    static let workload: Workload = {
        let now = Date(timeIntervalSince1970: floor(Date().timeIntervalSince1970 / 60) * 60)
        return try! WorkloadGenerator.make(WorkloadSpec(conversations: 160, days: 7, seed: 42, now: now))
    }()

    static func scan(_ db: TestDatabase, _ extra: [String]) throws -> SpawnedProcess {
        try SpawnedProcess(Reliability.executable, arguments: ["scan", "--provider", "rules", "--concurrency", "4"] + extra,
                           environment: Reliability.environment(databaseURL: db.connectionURL, server: nil))
    }

    /// Every finding a user has, open or resolved, by what it is about and what it rests on. A subject key names rows
    /// by their ids (`deadline:<id>`, `conflict:<event>:<event>`), which differ from one database to the next, so each
    /// id is shown as that row's `idempotency_key`: the item's identity, the same in every database. A conflict's
    /// fingerprint hashes its two events in the order of their ids, so for conflicts the facts it hashes (each event's
    /// title, date, time and place, in the order of their identities) stand in for it. A reminder's fingerprint hashes
    /// its time, and a deadline due today whose evening slot has passed is reminded at the next quarter hour of the
    /// scan's clock: the reference scan and the shards run minutes apart (in CI once across 09:00), so its title and
    /// its deadline's due time stand in for it. Every other fingerprint is compared as stored.
    static func findings(_ db: TestDatabase) async throws -> [String] {
        try await db.pool.query(
            """
            WITH item AS (
              SELECT id, idempotency_key FROM calendar_events UNION ALL SELECT id, idempotency_key FROM rsvp_tracking
              UNION ALL SELECT id, idempotency_key FROM deadlines UNION ALL SELECT id, idempotency_key FROM reminders),
            finding AS (
              SELECT f.*, string_to_array(f.subject_key, ':') AS parts FROM assistant_findings f)
            SELECT row(f.user_id, f.kind,
                       (SELECT string_agg(COALESCE(i.idempotency_key, p.part), ' ' ORDER BY p.n > 1, COALESCE(i.idempotency_key, p.part))
                        FROM unnest(f.parts) WITH ORDINALITY AS p(part, n) LEFT JOIN item i ON i.id::text = p.part),
                       CASE WHEN f.kind = 'conflict' THEN
                         (SELECT string_agg(concat_ws('|', e.title, e.date, e.time, e.location), ' ' ORDER BY e.idempotency_key)
                          FROM calendar_events e WHERE e.id::text = ANY(f.parts))
                       WHEN f.kind = 'reminder' THEN
                         (SELECT string_agg(concat_ws('|', r.title, d.due_at), ' ' ORDER BY r.idempotency_key)
                          FROM reminders r LEFT JOIN deadlines d ON d.id = r.deadline_id WHERE r.id::text = ANY(f.parts))
                       ELSE f.fingerprint END,
                       f.status, f.dismissed, f.severity)::text AS r
            FROM finding f ORDER BY 1
            """
        ).map { try $0.decode("r") }
    }

    /// Runs `scans` (argument lists) at once on a fresh copy of the workload; returns the findings they leave.
    static func findings(after scans: [[String]]) async throws -> [String] {
        try await TestDatabase.with { db in
            _ = try await WorkloadLoader(pool: db.pool).load(Self.workload)
            let children = try scans.map { try Self.scan(db, $0) }
            for child in children {
                let end = try await child.waitForExit(timeout: 300)
                try #require(end == .exit(0), "\(child.commandLine): \(end)\n\(child.stderr)")
            }
            let unscanned: Int = try await db.pool.query("SELECT count(*) AS n FROM scan_watermarks WHERE scanned_at IS NULL")[0].decode("n")
            #expect(unscanned == 0, "every conversation is scanned")
            return try await Self.findings(db)
        }
    }

    /// One scan's findings, computed once (the suite runs its tests one after another).
    actor Reference {
        private var value: [String]?
        func get() async throws -> [String] {
            if let value { return value }
            let found = try await ShardFindingsTests.findings(after: [[]])
            value = found
            return found
        }
    }
    static let reference = Reference()

    static func expectSame(_ found: [String], _ label: String) async throws {
        let reference = try await Self.reference.get()
        #expect(!reference.isEmpty, "the workload has findings")
        #expect(found.count == reference.count, "\(label): \(found.count) findings, one scan \(reference.count)")
        let difference = Set(found).symmetricDifference(reference).sorted()
        #expect(difference.isEmpty, "\(label) differ from one scan: \(difference.prefix(6))")
    }

    @Test("two shards at once leave the findings of one scan")
    func twoShards() async throws {
        try await Self.expectSame(try await Self.findings(after: [["--shard", "0/2"], ["--shard", "1/2"]]), "two shards")
    }

    @Test("three shards at once leave the findings of one scan")
    func threeShards() async throws {
        try await Self.expectSame(try await Self.findings(after: [["--shard", "0/3"], ["--shard", "1/3"], ["--shard", "2/3"]]), "three shards")
    }

    @Test("three identical scans at once leave the findings of one scan")
    func threeConcurrentScans() async throws {
        try await Self.expectSame(try await Self.findings(after: [[], [], []]), "three concurrent scans")
    }
}

