import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The CLI as a child process, output captured in temporary files (no pipe can fill up), every wait bounded,
/// and the process killed if a test leaves it running.
final class ScanChild: @unchecked Sendable {
    private let process = Process()
    private let outURL: URL
    private let errURL: URL

    init(_ arguments: [String], environment: [String: String]) throws {
        let directory = FileManager.default.temporaryDirectory
        outURL = directory.appendingPathComponent("scan-child-\(UUID().uuidString).out")
        errURL = directory.appendingPathComponent("scan-child-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = ScanHarness.executable
        process.arguments = arguments
        // No real key or limits from the developer's shell reach the child.
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OPENAI_") }
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }

    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    func sigkill() { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The exit status; kills the child and throws if it runs longer than `timeout` seconds.
    @discardableResult
    func waitForExit(timeout: Double) async throws -> (reason: Process.TerminationReason, code: Int32) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                sigkill()
                throw ScanTestError("messageai-jobs \(process.arguments?.joined(separator: " ") ?? "") ran longer than \(timeout) s; stderr: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (process.terminationReason, process.terminationStatus)
    }

    /// `scan` against the fake server with the openai provider and the repository's prompts.
    static func scan(_ extra: [String], databaseURL: String, baseURL: URL) throws -> ScanChild {
        try ScanChild(
            ["scan", "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--no-prefilter", "--json"] + extra,
            environment: ["DATABASE_URL": databaseURL, "OPENAI_BASE_URL": baseURL.absoluteString, "OPENAI_API_KEY": "sk-test-not-a-real-key",
                          "LOG_LEVEL": "error"])
    }
}
