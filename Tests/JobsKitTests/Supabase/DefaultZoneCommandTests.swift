import Core
import Foundation
import JobsKit
import Testing
import TestSupport

/// `MESSAGEAI_TIMEZONE` reaches the commands that serve it through the built binary, as a deployment sets it: the
/// worker's extraction and `batch collect` write a user without a `user_settings` row in that zone, and an unknown
/// name stops them as it stops `scan`.
@Suite(.serialized) struct DefaultZoneCommandTests {
    static let zone = "Asia/Tokyo"

    /// The built CLI with the fake server as its LLM and `extra` on top of the environment.
    static func run(_ arguments: [String], _ h: BatchHarness, extra: [String: String] = [:]) async throws
        -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        let environment = SpawnedProcess.inheritedEnvironment(dropping: ["OPENAI_", "DATABASE_URL", "PG", "LOG_LEVEL", "MESSAGEAI_"])
            .merging(["DATABASE_URL": h.db.connectionURL, "OPENAI_BASE_URL": h.server.baseURL.absoluteString,
                      "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"]) { _, new in new }
            .merging(extra) { _, new in new }
        return try await SpawnedProcess.run(ScanHarness.executable, arguments: arguments, environment: environment, timeout: 120)
    }

    /// Deadlines written, and how many of them are due at their day's end (or hour) in `zone`.
    static func deadlines(in zone: String, _ h: BatchHarness) async throws -> (all: Int, inZone: Int) {
        let row = try await h.db.pool.query(
            """
            SELECT count(*) AS n,
                   count(*) FILTER (WHERE due_at = (deadline + COALESCE(deadline_time, '23:59'::time)) AT TIME ZONE $1) AS z
            FROM deadlines
            """, [zone])[0]
        return (try row.decode("n"), try row.decode("z"))
    }

    @Test func theWorkersExtractionWritesInTheDefaultZone() async throws {
        try await BatchHarness.with { h in
            try await h.db.pool.query("DELETE FROM user_settings")
            try await h.db.pool.query("INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1)", [BatchHarness.birthday])
            let worker = try await Self.run(
                ["worker", "--once", "--provider", "openai", "--prompts", WorkerHarness.promptsPath], h,
                extra: [UserTimeZonePolicy.environmentVariable: Self.zone])
            #expect(worker.termination == .exit(0), "\(worker.stderr)")
            let written = try await Self.deadlines(in: Self.zone, h)
            #expect(written.all > 0)
            #expect(written.inZone == written.all, "deadlines not due in \(Self.zone): \(written)")
        }
    }

    @Test func batchCollectWritesInTheDefaultZone() async throws {
        try await BatchHarness.with { h in
            try await h.db.pool.query("DELETE FROM user_settings")
            // Submitted without the variable (UTC): only collect's zone can put the rows in Tokyo.
            let submit = try await Self.run(["scan", "--batch", "--provider", "openai", "--prompts", WorkerHarness.promptsPath], h)
            #expect(submit.termination == .exit(0), "\(submit.stderr)")
            let collect = try await Self.run(
                ["batch", "collect", "--prompts", WorkerHarness.promptsPath], h, extra: [UserTimeZonePolicy.environmentVariable: Self.zone])
            #expect(collect.termination == .exit(0), "\(collect.stderr)")
            let written = try await Self.deadlines(in: Self.zone, h)
            #expect(written.all > 0)
            #expect(written.inZone == written.all, "deadlines not due in \(Self.zone): \(written)")
        }
    }

    @Test(arguments: [["worker", "--once", "--provider", "rules"], ["batch", "collect"]])
    func anUnknownDefaultZoneStopsTheCommand(_ command: [String]) async throws {
        try await BatchHarness.with { h in
            let result = try await Self.run(command + ["--prompts", WorkerHarness.promptsPath], h,
                                            extra: [UserTimeZonePolicy.environmentVariable: "Mars/Base"])
            #expect(result.termination != .exit(0))
            #expect(result.stderr.contains("MESSAGEAI_TIMEZONE='Mars/Base' is not valid: expected an IANA time zone name"), "\(result.stderr)")
            #expect(try await h.count("SELECT count(*) AS n FROM job_runs") == 0, "nothing ran")
        }
    }
}
