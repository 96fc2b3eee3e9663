package import ArgumentParser
import Core
import Foundation
package import Logging
package import Postgres
import Synchronization
#if canImport(Glibc)
import Glibc
import JobsKit
#endif

/// Where the database is; every command that touches Postgres takes these.
package struct DatabaseOptions: ParsableArguments, Sendable {
    package init() {}

    @Option(name: .customLong("database-url"),
            help: "Postgres connection URI or libpq string (default: $DATABASE_URL, else libpq's PG* variables).")
    package var databaseURL: String?

    /// The connection settings from `environment` (the entry point's one read of the process environment) and
    /// `--database-url`; throws when `DATABASE_LOCK_TIMEOUT` or `DATABASE_STATEMENT_TIMEOUT` is not a number of seconds.
    package func configuration(_ environment: [String: String]) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration.fromEnvironment(environment)
        if let databaseURL { configuration.connectionString = databaseURL }
        CLILogging.registerPassword(of: configuration)
        return configuration
    }

    /// Lends a pool to `body` and shuts it down afterwards (`Assembly.lendPool`), for the benchmark binary; the
    /// `messageai-jobs` commands get theirs from `Assembly.withServices`. Unless `requireMigrated` is false (`migrate` itself), the
    /// database must have every service migration this binary carries: otherwise a `MigrationError` coded `.notMigrated`
    /// ("run `messageai-jobs migrate`") is thrown before `body` does anything.
    package func withPool<T: Sendable>(environment: [String: String], maxConnections: Int = 4, requireMigrated: Bool = true,
                                      _ body: (PostgresPool) async throws -> T) async throws -> T {
        try await Assembly.lendPool(try configuration(environment), connections: maxConnections, requireMigrated: requireMigrated, body)
    }
}

/// Output and logging flags shared by all commands.
package struct OutputOptions: ParsableArguments, Sendable {
    package init() {}

    @Flag(name: .long, help: "Print machine-readable JSON on stdout instead of text.")
    package var json = false

    @Flag(name: [.short, .long], help: "Log debug details to stderr (the same as LOG_LEVEL=debug).")
    package var verbose = false

    /// Sets up logging from `environment`'s `LOG_LEVEL` and `LOG_FORMAT` (and `-v`). The entry point has refused bad
    /// values before any command ran (`EnvironmentSettings`); here an unreadable one falls back to the defaults.
    package func bootstrap(environment: [String: String]) {
        let settings = (try? LogSettings.from(environment, verbose: verbose)) ?? LogSettings(level: verbose ? .debug : LogSettings.defaultLevel)
        CLILogging.bootstrap(settings, environment: environment)
    }
}

/// Logging to stderr, bootstrapped once per process: `LOG_FORMAT` text (swift-log's `StreamLogHandler`) or json
/// (`JSONLogHandler`), at `LOG_LEVEL`, every handler behind `RedactingLogHandler`.
package enum CLILogging {
    private static let bootstrapped = Mutex(false)
    private static let chosen = Mutex<LogSettings?>(nil)

    /// An operational message for whoever reads stderr (a provider notice, "shutting down: ..."): a plain line, or
    /// under `LOG_FORMAT=json` a `notice` record, so a log collector only ever reads JSON lines.
    package static func notice(_ text: String, label: String = "messageai") {
        if chosen.withLock({ $0?.format }) == .json {
            Logger(label: label).notice("\(text)")
        } else {
            Console.error(text)
        }
    }

    /// Sets up swift-log once; later calls do nothing. Registers the secrets `environment` holds (the OpenAI key,
    /// the database password) with `LogSecrets.shared` first.
    package static func bootstrap(_ settings: LogSettings, environment: [String: String]) {
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        chosen.withLock { $0 = settings }
        LogSecrets.shared.add(environment["OPENAI_API_KEY"])
        LogSecrets.shared.add(environment["PGPASSWORD"])
        if let configuration = try? PostgresConfiguration.fromEnvironment(environment) { registerPassword(of: configuration) }
        LoggingSystem.bootstrap { label in
            switch settings.format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = settings.level
                return RedactingLogHandler(handler)
            case .json:
                return RedactingLogHandler(JSONLogHandler(label: label, level: settings.level))
            }
        }
    }

    /// Keeps `configuration`'s password (and its percent-encoded form) out of every log line.
    static func registerPassword(of configuration: PostgresConfiguration) {
        guard let password = configuration.password else { return }
        LogSecrets.shared.add(password)
        LogSecrets.shared.add(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
    }

    package static func logger(_ label: String) -> Logger { Logger(label: label) }
}

/// Writes to stdout / stderr with write(2), never through APIs that trap on an error (FileHandle.write does). A
/// write that fails with EPIPE means the reader went away (`scan | head`, a closed log pipe): the output is dropped,
/// the job goes on, its work stays committed, and `readerWentAway` lets the command exit with `ExitStatus.readerWentAway`.
/// SIGPIPE must be ignored (`ignoreSIGPIPE()` at startup) for EPIPE to reach us instead of killing the process.
package enum Console {
    private static let stdoutGone = Atomic<Bool>(false)

    /// True once a write to stdout failed because nobody reads it any more.
    package static var readerWentAway: Bool { stdoutGone.load(ordering: .relaxed) }

    /// Makes a write to a closed pipe fail with EPIPE instead of killing the process.
    package static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }

    package static func print(_ text: String) {
        if !write(text + "\n", to: STDOUT_FILENO) { stdoutGone.store(true, ordering: .relaxed) }
    }

    package static func error(_ text: String) {
        _ = write(text + "\n", to: STDERR_FILENO)
    }

    /// Rewrites one progress line on stderr.
    package static func progress(_ text: String) {
        _ = write("\r\u{1B}[2K" + text, to: STDERR_FILENO)
    }

    package static func progressDone() {
        _ = write("\n", to: STDERR_FILENO)
    }

    /// Writes all of `text`; false when the reader went away (EPIPE) or the descriptor is unusable. Once stdout's
    /// reader is gone nothing more is tried there.
    private static func write(_ text: String, to descriptor: Int32) -> Bool {
        if descriptor == STDOUT_FILENO, readerWentAway { return false }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// True when stderr is a terminal: progress lines go there only then.
    package static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Prints an Encodable value as pretty JSON on stdout.
    package static func printJSON<T: Encodable>(_ value: T) throws {
        print(try jsonText(value))
    }

    /// Every command's `--json` in one style, the database's: snake_case keys, lowercase ids, ISO 8601 instants.
    /// Foundation writes a `UUID` in capitals; a string value that is exactly an id is lowercased here.
    static func jsonText<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Instant.string(date))
        }
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard let pattern = uppercaseID else { return text }
        var result = ""
        var last = text.startIndex
        for match in text.matches(of: pattern) {
            result += text[last..<match.range.lowerBound]
            result += text[match.range].lowercased()
            last = match.range.upperBound
        }
        return result + text[last...]
    }

    private nonisolated(unsafe) static let uppercaseID = try? Regex(#""[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}""#)
}
