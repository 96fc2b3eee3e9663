import Foundation
import JobsKit
import TestSupport
import Testing

@Suite("Worker command")
struct WorkerCommandTests {
    @Test("an idle worker exits 0 on SIGTERM")
    func sigtermWhileIdle() async throws {
        try await WorkerHarness.withDemo { db in
            let child = try JobsBinary.child(
                ["worker", "--provider", "rules", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "30"],
                environment: ["DATABASE_URL": db.connectionURL])
            defer { child.kill() }
            try await child.waitForStderr(containing: "started", timeout: 30)
            child.kill(SIGTERM)
            let status = try await child.waitForExit(timeout: 15)
            #expect(status == .exit(0), "stderr: \(child.stderr)")
            #expect(child.stdout.contains("stopped on request"), "\(child.stdout)")
            #expect(child.stderr.contains("shutting down: finishing in-flight requests"))
        }
    }

    @Test("request + worker --once: the CLI enqueues by id and serves it")
    func requestThenOnce() async throws {
        try await WorkerHarness.withDemo { db in
            let environment = ["DATABASE_URL": db.connectionURL]
            let enqueue = try JobsBinary.child(
                ["request", "extract", "--conversation", WorkerHarness.conversations.birthday.uuidString],
                environment: environment)
            #expect(try await enqueue.waitForExit(timeout: 30).code == 0)
            let id = try #require(Int64(enqueue.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "stdout: \(enqueue.stdout)")

            let unknown = try JobsBinary.child(
                ["request", "assist", "--user", "00000000-0000-4000-8000-00000000dead"], environment: environment)
            #expect(try await unknown.waitForExit(timeout: 30).code != 0)
            #expect(unknown.stderr.contains("no user with id 00000000-0000-4000-8000-00000000dead"))

            let worker = try JobsBinary.child(
                ["worker", "--once", "--json", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                environment: environment)
            defer { worker.kill() }
            #expect(try await worker.waitForExit(timeout: 60).code == 0, "stderr: \(worker.stderr)")
            #expect(worker.stdout.contains("\"done\" : 1"))
            #expect(try await WorkerHarness.row(id, db.pool).status == "done")
        }
    }
}
