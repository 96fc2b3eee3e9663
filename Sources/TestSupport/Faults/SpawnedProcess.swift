package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

/// A program run as a child process for fault tests: output goes to temporary files (no pipe can fill up and
/// stall the child), every wait is bounded, and a child still running when the value goes away is killed.
package final class SpawnedProcess: @unchecked Sendable {
    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        package var description: String {
            switch self {
            case .exit(let code): "exit \(code)"
            case .signal(let signal): "signal \(signal)"
            }
        }

        /// The exit status, or the number of the signal that ended the child.
        package var code: Int32 {
            switch self {
            case .exit(let code), .signal(let code): code
            }
        }
    }

    package struct TimedOut: Error, CustomStringConvertible {
        package let description: String
    }

    // `Process` is only touched from the creating call and the thread-safe accessors below.
    private let process = Process()
    private let outURL: URL
    private let errURL: URL
    package let commandLine: String

    /// Starts `executable` with exactly `environment` (nothing is inherited implicitly), in `directory` (nil: this
    /// process's working directory).
    package init(_ executable: URL, arguments: [String], environment: [String: String], directory workingDirectory: URL? = nil) throws {
        let directory = FileManager.default.temporaryDirectory
        let stem = "child-\(UUID().uuidString.prefix(8))"
        outURL = directory.appendingPathComponent(stem + ".out")
        errURL = directory.appendingPathComponent(stem + ".err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        commandLine = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
    }

    deinit {
        if process.isRunning { posixKill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }

    /// Starts `executable` with this process's environment (less the secrets `inheritedEnvironment` drops) plus `extra`.
    package convenience init(_ executable: URL, arguments: [String], adding extra: [String: String], directory: URL? = nil) throws {
        try self.init(executable, arguments: arguments, environment: Self.inheritedEnvironment().merging(extra) { _, new in new },
                      directory: directory)
    }

    /// This process's environment without the variables whose names start with one of `prefixes`, so a developer's
    /// real key or database never reaches a child under test.
    package static func inheritedEnvironment(dropping prefixes: [String] = ["OPENAI_", "DATABASE_URL", "PG", "LOG_LEVEL"]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { entry in !prefixes.contains { entry.key.hasPrefix($0) } }
    }

    package var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    package var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
    package var isRunning: Bool { process.isRunning }
    package var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGKILL by default) if the child still runs.
    package func kill(_ signal: Int32 = SIGKILL) {
        if process.isRunning { posixKill(process.processIdentifier, signal) }
    }

    /// Waits for the child to end; kills it and throws if it runs longer than `timeout` seconds.
    @discardableResult
    package func waitForExit(timeout: Double) async throws -> Termination {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                kill()
                throw TimedOut(description: "`\(commandLine)` ran longer than \(timeout) s; stderr: \(stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationReason == .exit ? .exit(process.terminationStatus) : .signal(process.terminationStatus)
    }

    /// Waits until the child has written `text` to stderr; throws if it exits first or `timeout` seconds pass.
    package func waitForStderr(containing text: String, timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !stderr.contains(text) {
            guard process.isRunning else {
                throw TimedOut(description: "`\(commandLine)` exited before printing '\(text)'; stderr: \(stderr.suffix(2000))")
            }
            guard Date() < deadline else {
                throw TimedOut(description: "no '\(text)' on the stderr of `\(commandLine)` after \(timeout) s; stderr: \(stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs a program to completion and returns how it ended with its output.
    package static func run(
        _ executable: URL, arguments: [String], environment: [String: String], timeout: Double = 60
    ) async throws -> (termination: Termination, stdout: String, stderr: String) {
        let child = try SpawnedProcess(executable, arguments: arguments, environment: environment)
        let termination = try await child.waitForExit(timeout: timeout)
        return (termination, child.stdout, child.stderr)
    }
}

/// `kill(2)`, named apart from `SpawnedProcess.kill` so the method does not shadow it.
private func posixKill(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
