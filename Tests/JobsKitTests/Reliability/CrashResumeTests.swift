import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `messageai-jobs scan` killed with SIGKILL at random moments, again and again, then run to the end: the rows are
/// exactly those of a scan that was never interrupted, on an identical copy of the data.
@Suite("Reliability: crash and resume")
struct CrashResumeTests {
    static let seed: UInt64 = 20_261_122

    /// Random small answer delays, so kills land in every phase: reading, waiting on the model, writing.
    final class Delays: @unchecked Sendable {
        private let lock = NSLock()
        private var random: SplitMix64

        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        func next() -> Double {
            lock.lock()
            defer { lock.unlock() }
            return Double.random(in: 0.1...0.3, using: &random)
        }
    }

    static func scan(_ db: TestDatabase, _ server: FakeOpenAIServer, extra: [String] = [], applicationName: String = "messageai-jobs") throws -> SpawnedProcess {
        try SpawnedProcess(Reliability.executable,
                         arguments: ["scan", "--provider", "openai", "--prompts", Reliability.promptsURL.path, "--no-prefilter",
                                     "--concurrency", "2", "--json"] + extra,
                         environment: Reliability.environment(databaseURL: db.connectionURL + "&application_name=\(applicationName)", server: server.baseURL))
    }

    /// Ends the server sessions a killed child left behind and waits until they are gone: a session still running the
    /// child's last claim could otherwise renew a lease right after the test expired it.
    static func endSessions(_ db: TestDatabase, applicationName: String) async throws {
        try await waitUntil(20, "the killed scan's sessions to end") {
            let rows = try await db.pool.query(
                "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])
            return try rows[0].decode("n", as: Int.self) == 0
        }
    }

    @Test("eight SIGKILLs at random points, then one full scan, leave the rows of an uninterrupted run")
    func killedManyTimesThenResumed() async throws {
        let workload = try ScanHarness.workload(conversations: 24, active: 24, newMessages: 4, seed: 53)
        let delays = Delays(seed: Self.seed)
        let server = try FakeOpenAIServer { .delay(delays.next(), then: ScanRequests.answer($0)) }
        defer { server.stop() }

        let reference = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let child = try Self.scan(db, server)
            let end = try await child.waitForExit(timeout: 120)
            try #require(end == .exit(0), "stderr: \(child.stderr)")
            return try await Reliability.outcome(db.pool)
        }
        #expect(reference.contains { $0.hasPrefix("deadline ") })

        try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            var random = SplitMix64(seed: Self.seed)
            var killed = 0
            let applicationName = "crash-resume-\(UUID().uuidString.prefix(8))"
            for _ in 0..<8 {
                let child = try Self.scan(db, server, applicationName: applicationName)
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
                if child.isRunning { killed += 1 }
                child.kill()
                let end = try await child.waitForExit(timeout: 30)
                #expect(end == .signal(SIGKILL) || end == .exit(0), "stderr: \(child.stderr)")
                // A killed scanner's claims last --lease-seconds (at least 30 s, the production safeguard against two
                // scanners on one conversation). The test expires them instead of waiting, as time passing would.
                try await Self.endSessions(db, applicationName: applicationName)
                try await db.pool.query("UPDATE scan_watermarks SET lease_expires_at = now() - interval '1 second' WHERE lease_owner IS NOT NULL")
            }
            #expect(killed >= 6, "most kills should land while the scan runs")
            let partial = try await ScanHarness.scannedConversations(db).count
            #expect(partial < 24, "the kills left nothing for the final run")

            let final = try Self.scan(db, server)
            let end = try await final.waitForExit(timeout: 120)
            #expect(end == .exit(0), "stderr: \(final.stderr)")
            let summary = try JSONValue.parse(Data(final.stdout.utf8))
            #expect(summary["failed"]?.integerValue == 0)
            #expect(summary["conversations"]?.integerValue == Int64(24 - partial))

            let recovered = try await Reliability.outcome(db.pool)
            #expect(recovered.count == reference.count)
            #expect(recovered == reference, "rows differ from the uninterrupted run: \(Set(recovered).symmetricDifference(reference).sorted().prefix(6))")
        }
    }
}
