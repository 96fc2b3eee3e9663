import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
import JobsCLI
#endif

/// A night that failed for someone says so, from outside: the exit status cron and Kubernetes read, the run's record,
/// and `runs` right after a kill. Before issue 35 a scan whose proactive pass failed for users exited 0 and recorded
/// `succeeded`; a killed run showed "running for 41.9 s" until some later job marked it.
@Suite("Records: true exit codes and runs")
struct TrueExitTests {
    /// A fault in the database: writing any finding of Maria fails, so the pass fails for her batch.
    static func breakFindings(_ db: TestDatabase) async throws {
        try await db.pool.query(
            """
            CREATE FUNCTION fail_maria_findings() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'injected fault for %', NEW.user_id; END $$
            """)
        try await db.pool.query(
            """
            CREATE TRIGGER fail_maria_findings BEFORE INSERT OR UPDATE ON assistant_findings FOR EACH ROW
            WHEN (NEW.user_id = '\(DemoDataset.userIDs.maria.uuidString.lowercased())') EXECUTE FUNCTION fail_maria_findings()
            """)
    }

    @Test("a scan whose proactive pass failed for a user exits 2, records partial, and says so first")
    func failedPassMakesTheScanPartial() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            try await Self.breakFindings(db)
            let json = try await Reliability.cli(["scan", "--provider", "rules", "--json"], databaseURL: db.connectionURL)
            #expect(json.termination == .exit(2), "stderr: \(json.stderr)")
            let summary = try JSONValue.parse(Data(json.stdout.utf8))
            #expect(summary["status"]?.stringValue == "partial")
            #expect(summary["failed"]?.integerValue == 0, "extraction itself succeeded")
            #expect((summary["proactive"]?["usersFailed"]?.integerValue ?? summary["proactive"]?["users_failed"]?.integerValue ?? 0) > 0)
            let runID = try #require(summary["runID"]?.stringValue ?? summary["run_id"]?.stringValue)
            let row = try await db.pool.query("SELECT status, error FROM job_runs WHERE id = $1::uuid", [runID])[0]
            #expect(try row.decode("status", as: String.self) == "partial")
            #expect(try row.decode("error", as: String?.self)?.contains("proactive pass failed") == true)

        }
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            try await Self.breakFindings(db)
            let text = try await Reliability.cli(["scan", "--provider", "rules"], databaseURL: db.connectionURL)
            #expect(text.termination == .exit(2))
            let first = text.stdout.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.hasPrefix("PARTIAL: the proactive pass failed for"), "first line: \(first)")
        }
    }

    @Test("runs shows a killed run abandoned once its heartbeat lapsed, before any job marks it, and runs --failed lists it")
    func killedRunIsShownAbandonedAtOnce() async throws {
        let server = try FakeOpenAIServer { _ in .delay(60, then: .chat(content: "{}")) }
        defer { server.stop() }
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 3, active: 3, newMessages: 2), into: db)
            let child = try SpawnedProcess(
                Reliability.executable,
                arguments: ["scan", "--provider", "openai", "--prompts", Reliability.promptsURL.path, "--no-prefilter"],
                environment: Reliability.environment(databaseURL: db.connectionURL, server: server.baseURL,
                                                     extra: ["MESSAGEAI_RUN_LEASE_SECONDS": "2"]))
            try await waitUntil(30, "the scan to ask the model") { !server.requests.isEmpty }
            child.kill(SIGKILL)
            _ = try await child.waitForExit(timeout: 10)
            let runID: UUID = try await db.pool.query("SELECT id FROM job_runs WHERE kind = 'scan'")[0].decode("id")
            try await waitUntil(10, "the killed run's heartbeat to lapse") {
                try await db.pool.query("SELECT 1 FROM job_runs WHERE id = $1 AND alive_until < now()", [runID]).count == 1
            }

            let listed = try await Reliability.cli(["runs", "--json"], databaseURL: db.connectionURL)
            #expect(listed.termination == .exit(0), "stderr: \(listed.stderr)")
            let run = try #require(try JSONValue.parse(Data(listed.stdout.utf8)).arrayValue?.first)
            #expect(run["status"]?.stringValue == "abandoned")
            #expect(run["lapsed_at"] != nil || run["lapsedAt"] != nil)
            let failed = try await Reliability.cli(["runs", "--failed"], databaseURL: db.connectionURL)
            #expect(failed.stdout.contains(runID.uuidString.lowercased()), "runs --failed lists it: \(failed.stdout)")
            #expect(failed.stdout.contains("abandoned") && failed.stdout.contains("no heartbeat since"))
            #expect(!failed.stdout.contains("running for"))
            // Shown, not written: only a job marks the row.
            #expect(try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [runID])[0].decode("status", as: String.self) == "running")
        }
    }
}
