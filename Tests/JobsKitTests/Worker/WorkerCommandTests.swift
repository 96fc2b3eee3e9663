import Foundation
import JobsKit
import TestSupport
import Testing

@Suite("Worker command")
struct WorkerCommandTests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("messageai-jobs")
    }

    @Test("an idle worker exits 0 on SIGTERM")
    func sigtermWhileIdle() async throws {
        try await WorkerHarness.withDemo { db in
            let child = try ChildProcess(
                Self.executable,
                ["worker", "--provider", "rules", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "30"],
                environment: ["DATABASE_URL": db.connectionURL])
            defer { child.kill() }
            try await child.waitForStderr(containing: "started", timeout: 30)
            child.signal(SIGTERM)
            let status = try await child.waitForExit(timeout: 15)
            #expect(status.reason == .exit)
            #expect(status.code == 0, "stderr: \(child.stderr)")
            #expect(child.stdout.contains("stopped: stopped"))
            #expect(child.stderr.contains("shutting down: finishing in-flight requests"))
        }
    }

    @Test("request + worker --once: the CLI enqueues by id and serves it")
    func requestThenOnce() async throws {
        try await WorkerHarness.withDemo { db in
            let environment = ["DATABASE_URL": db.connectionURL]
            let enqueue = try ChildProcess(
                Self.executable, ["request", "extract", "--conversation", WorkerHarness.conversations.birthday.uuidString],
                environment: environment)
            #expect(try await enqueue.waitForExit(timeout: 30).code == 0)
            let id = try #require(Int64(enqueue.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "stdout: \(enqueue.stdout)")

            let unknown = try ChildProcess(
                Self.executable, ["request", "assist", "--user", "00000000-0000-4000-8000-00000000dead"], environment: environment)
            #expect(try await unknown.waitForExit(timeout: 30).code != 0)
            #expect(unknown.stderr.contains("no user with id 00000000-0000-4000-8000-00000000dead"))

            let worker = try ChildProcess(
                Self.executable, ["worker", "--once", "--json", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                environment: environment)
            defer { worker.kill() }
            #expect(try await worker.waitForExit(timeout: 60).code == 0, "stderr: \(worker.stderr)")
            #expect(worker.stdout.contains("\"done\" : 1"))
            #expect(try await WorkerHarness.row(id, db.pool).status == "done")
        }
    }
}

/// A CLI child process with captured output, bounded waits, and cleanup.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OPENAI_") }
        env.merge(environment) { _, new in new }
        env["LOG_LEVEL"] = "info"
        process.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, error: false) }
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, error: true) }
        try process.run()
    }

    private func append(_ data: Data, error: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if error { err.append(data) } else { out.append(data) }
    }

    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    func signal(_ number: Int32) { _ = Glibc.kill(process.processIdentifier, number) }

    func kill() { if process.isRunning { process.terminate() } }

    func waitForStderr(containing text: String, timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !stderr.contains(text) {
            guard process.isRunning else { throw HarnessError("the process exited before printing '\(text)'; stderr: \(stderr)") }
            guard Date() < deadline else { throw HarnessError("no '\(text)' on stderr after \(timeout) s; stderr: \(stderr)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func waitForExit(timeout: Double) async throws -> (reason: Process.TerminationReason, code: Int32) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                throw HarnessError("the process did not exit within \(timeout) s; stderr: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Let the pipes drain what the process wrote last.
        try await Task.sleep(for: .milliseconds(100))
        return (process.terminationReason, process.terminationStatus)
    }
}
