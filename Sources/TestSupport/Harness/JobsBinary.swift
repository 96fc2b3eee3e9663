import Foundation

/// The built `messageai-jobs` binary as a child process, for the tests that drive the commands end to end.
package enum JobsBinary {
    package struct Result {
        package let code: Int32
        package let stdout: String
        package let stderr: String

        package init(code: Int32, stdout: String, stderr: String) {
            self.code = code
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// The CLI as a child (`SpawnedProcess`), logging at info so a worker's "started" line shows.
    package static func child(_ arguments: [String], environment: [String: String]) throws -> SpawnedProcess {
        try SpawnedProcess(ScanHarness.executable, arguments: arguments, adding: environment.merging(["LOG_LEVEL": "info"]) { own, _ in own })
    }

    /// Runs the built CLI with `environment` added to this process's; killed (and failed) after `timeout` seconds.
    package static func run(_ arguments: [String], environment: [String: String], timeout: Double = 60) async throws -> Result {
        let child = try SpawnedProcess(ScanHarness.executable, arguments: arguments, adding: environment)
        let termination = try await child.waitForExit(timeout: timeout)
        return Result(code: termination.code, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs the command against `db` (plus `environment`) to its end.
    package static func run(_ arguments: [String], _ db: TestDatabase, _ environment: [String: String] = [:], timeout: Double = 90) async throws -> Result {
        let child = try child(arguments, environment: environment.merging(["DATABASE_URL": db.connectionURL]) { $1 })
        defer { child.kill() }
        let status = try await child.waitForExit(timeout: timeout)
        return Result(code: status.code, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs the command with `--json`, requires exit 0, and decodes its stdout.
    package static func json<T: Decodable>(_ type: T.Type, _ arguments: [String], _ db: TestDatabase) async throws -> T {
        let result = try await run(arguments + ["--json"], db)
        guard result.code == 0 else {
            throw HarnessError("\(arguments.joined(separator: " ")) exited \(result.code): \(result.stderr)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(result.stdout.utf8))
    }

    /// The CLI with none of the developer shell's settings (OPENAI_*, DATABASE_*, PG*, LOG_*, MESSAGEAI_*): `db` and `extra` only.
    package static func isolated(_ arguments: [String], _ db: TestDatabase?, extra: [String: String]) async throws -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        var environment = SpawnedProcess.inheritedEnvironment(dropping: ["OPENAI_", "DATABASE_", "PG", "LOG_", "MESSAGEAI_", "JOB_COMPLETION_INDEX"])
        if let db { environment["DATABASE_URL"] = db.connectionURL }
        environment["LOG_LEVEL"] = "error"
        environment.merge(extra) { _, new in new }
        return try await SpawnedProcess.run(ScanHarness.executable, arguments: arguments, environment: environment, timeout: 60)
    }
}
