import ArgumentParser
import Foundation
import JobsKit
import JobsCLI

/// The benchmark binary's one read of the process environment: logging, the database and the model server's address
/// come from here, passed down as a value.
enum BenchEnvironment {
    static let values = ProcessInfo.processInfo.environment

    /// The variables the shared options read (`OutputOptions`, `DatabaseOptions`), checked once before any benchmark
    /// runs, with `messageai-jobs`' own checks and messages.
    static let checked: Set<String> = ["LOG_LEVEL", "LOG_FORMAT", "DATABASE_URL", "DATABASE_LOCK_TIMEOUT", "DATABASE_STATEMENT_TIMEOUT"]

    /// A usage error (exit 64) naming every bad variable of `checked`; nil when they are all valid or unset.
    static var problem: ValidationError? {
        let found = EnvironmentSettings.problems(values, of: checked)
        return found.isEmpty ? nil : ValidationError(found.joined(separator: "\n"))
    }
}

extension OutputOptions {
    /// Logging as `LOG_LEVEL`, `LOG_FORMAT` and `-v` say, with the environment's secrets kept out of every line.
    func bootstrap() { bootstrap(environment: BenchEnvironment.values) }
}
