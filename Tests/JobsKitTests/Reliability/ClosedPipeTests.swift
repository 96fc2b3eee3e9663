import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport

/// `scan | reader` where the reader goes away before the summary is written: the process must not crash (SIGPIPE,
/// or a trap on the failed write), the work stays committed and recorded, and the exit status says the output was
/// lost (3). The debug binary, the openai provider against the scripted loopback server.
@Suite("Reliability: a closed stdout pipe")
struct ClosedPipeTests {
    @Test func aScanWhoseReaderWentAwayKeepsItsWorkAndExits3() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 4, active: 4, newMessages: 3, seed: 77), into: db)
            let server = try FakeOpenAIServer { request in ScanRequests.answer(request) }
            defer { server.stop() }
            // The reader closes its end at once and lingers, as `python3 -c "import os; os.close(0); ..."` does.
            let script = #""$0" "$@" | (exec 0<&-; sleep 1); echo "status=${PIPESTATUS[0]}" >&2"#
            let child = try SpawnedProcess(
                URL(fileURLWithPath: "/bin/bash"),
                arguments: ["-c", script, ScanHarness.executable.path, "scan", "--provider", "openai", "--prompts", ScanHarness.promptsPath,
                            "--no-prefilter", "--no-assist"],
                adding: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                         "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"])
            _ = try await child.waitForExit(timeout: 120)
            let status = child.stderr.split(separator: "\n").last { $0.hasPrefix("status=") }
            #expect(status == "status=3", "stderr: \(child.stderr.suffix(2000))")
            #expect(!child.stderr.contains("Fatal error"), "\(child.stderr.suffix(2000))")
            #expect(try await ScanHarness.scannedConversations(db).count == 4, "the work was committed")
            let run = try await db.pool.query("SELECT status, conversations_processed FROM job_runs WHERE kind = 'scan'")
            #expect(run.count == 1)
            #expect(try run.first?.decode("status", as: String.self) == "succeeded")
            #expect(try run.first?.decode("conversations_processed", as: Int.self) == 4)
        }
    }
}
