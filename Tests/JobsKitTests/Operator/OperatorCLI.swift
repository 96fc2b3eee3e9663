import Foundation
import TestSupport

/// The `messageai-jobs` binary as a child, for the operator commands' tests (`runs`, `requests`, the migration check).
enum OperatorCLI {
    struct Result {
        let code: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], _ db: TestDatabase, timeout: Double = 60) async throws -> Result {
        let child = try WorkerCommandTests.child(arguments, environment: ["DATABASE_URL": db.connectionURL])
        defer { child.kill() }
        let status = try await child.waitForExit(timeout: timeout)
        return Result(code: status.code, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs the command with `--json`, requires exit 0, and decodes its stdout.
    static func json<T: Decodable>(_ type: T.Type, _ arguments: [String], _ db: TestDatabase) async throws -> T {
        let result = try await run(arguments + ["--json"], db)
        guard result.code == 0 else {
            throw HarnessError("\(arguments.joined(separator: " ")) exited \(result.code): \(result.stderr)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(result.stdout.utf8))
    }
}
