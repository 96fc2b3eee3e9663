import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The proactive pass with an LLM, SIGKILLed at random moments while it runs the assistant, then run to the end: every
/// user with findings has exactly one assistant run, as after a clean pass. Before issue 35 a killed pass had saved
/// some users' runs without recording that their findings were narrated (that was written once per batch), so the
/// next pass paid for them again (the probe's kill storm: 605 runs against 457).
@Suite("Reliability: a killed assistant pass")
struct AssistKillTests {
    static let answer: JSONValue = ["summary": "Nothing new.", "conflicts": [], "pending_rsvps": [], "near_deadlines": [], "priority_messages": [], "suggested_actions": []]

    static func assist(_ db: TestDatabase, _ server: FakeOpenAIServer, applicationName: String) throws -> SpawnedProcess {
        try SpawnedProcess(Reliability.executable,
                           arguments: ["assist", "--all", "--provider", "openai", "--prompts", Reliability.promptsURL.path, "--concurrency", "2"],
                           environment: Reliability.environment(databaseURL: db.connectionURL + "&application_name=\(applicationName)",
                                                                server: server.baseURL))
    }

    @Test("SIGKILLs mid-pass leave one assistant run per user, as a clean pass does")
    func killedPassesRepeatNoAssistantRun() async throws {
        let server = try FakeOpenAIServer { _ in .delay(0.05, then: .chat(content: Self.answer.serialized())) }
        defer { server.stop() }
        try await TestDatabase.with { db in
            _ = try await WorkloadLoader(pool: db.pool).load(ShardFindingsTests.workload)
            let scan = try await Reliability.cli(["scan", "--provider", "rules", "--no-assist"], databaseURL: db.connectionURL, timeout: 300)
            try #require(scan.termination == .exit(0), "stderr: \(scan.stderr)")

            var random = SplitMix64(seed: 35)
            let applicationName = "assist-kill-\(UUID().uuidString.prefix(8))"
            var landed = 0
            for _ in 0..<5 {
                let before = server.requests.count
                let child = try Self.assist(db, server, applicationName: applicationName)
                try await waitUntil(60, "the pass to run the model") { server.requests.count > before || !child.isRunning }
                try await Task.sleep(for: .milliseconds(Int.random(in: 100...1200, using: &random)))
                if child.isRunning { landed += 1 }
                child.kill(SIGKILL)
                _ = try await child.waitForExit(timeout: 30)
                try await CrashResumeTests.endSessions(db, applicationName: applicationName)
                // The killed pass's claims on assistant runs would last --lease-seconds; time passing, stood in for.
                try await db.pool.query("UPDATE proactive_users SET narrating_until = now() - interval '1 second' WHERE narrating_owner IS NOT NULL")
            }
            #expect(landed >= 3, "most kills should land while the pass runs the model")

            let final = try Self.assist(db, server, applicationName: applicationName)
            let end = try await final.waitForExit(timeout: 300)
            #expect(end == .exit(0), "stderr: \(final.stderr)")

            let users: Int = try await db.pool.query(
                "SELECT count(DISTINCT user_id) AS n FROM assistant_findings WHERE status = 'open' AND NOT dismissed")[0].decode("n")
            let row = try await db.pool.query("SELECT count(*) AS runs, count(DISTINCT user_id) AS users FROM assistant_runs")[0]
            let (runs, narrated): (Int, Int) = (try row.decode("runs"), try row.decode("users"))
            #expect(users > 20, "the workload gives many users findings")
            #expect(narrated == users, "every user with findings was narrated")
            #expect(runs == narrated, "\(runs - narrated) assistant runs were paid for twice")
        }
    }
}
