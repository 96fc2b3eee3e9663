import ArgumentParser
import Foundation
import Logging
import Postgres

/// Where the database is; every command that touches Postgres takes these.
public struct DatabaseOptions: ParsableArguments, Sendable {
    public init() {}

    @Option(name: .customLong("database-url"),
            help: "Postgres connection URI or libpq string (default: $DATABASE_URL, else libpq's PG* variables).")
    public var databaseURL: String?

    /// The connection settings; throws when `DATABASE_LOCK_TIMEOUT` or `DATABASE_STATEMENT_TIMEOUT` is not a number of seconds.
    public var configuration: PostgresConfiguration {
        get throws {
            var configuration = try PostgresConfiguration.fromEnvironment()
            if let databaseURL { configuration.connectionString = databaseURL }
            return configuration
        }
    }

    /// Refuses bad timeout variables before the command starts any work.
    public func validate() throws {
        do {
            _ = try configuration
        } catch let error as PostgresError {
            throw ValidationError(error.message)
        }
    }

    /// Lends a pool to `body` and shuts it down afterwards.
    public func withPool<T: Sendable>(maxConnections: Int = 4, _ body: (PostgresPool) async throws -> T) async throws -> T {
        let pool = PostgresPool(configuration: try configuration, maxConnections: maxConnections, logger: CLILogging.logger("messageai.postgres"))
        do {
            let value = try await body(pool)
            await pool.shutdown()
            return value
        } catch {
            await pool.shutdown()
            throw error
        }
    }
}

/// Output and logging flags shared by all commands.
public struct OutputOptions: ParsableArguments, Sendable {
    public init() {}

    @Flag(name: .long, help: "Print machine-readable JSON on stdout instead of text.")
    public var json = false

    @Flag(name: [.short, .long], help: "Log debug details to stderr (or set LOG_LEVEL=debug).")
    public var verbose = false

    public func bootstrap() { CLILogging.bootstrap(verbose: verbose) }
}

/// Logging to stderr, bootstrapped once per process.
public enum CLILogging {
    private static let once: Void = {
        let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }()

    nonisolated(unsafe) private static var verboseRequested = false

    public static func bootstrap(verbose: Bool) {
        if verbose { setenv("LOG_LEVEL", "debug", 1) }
        _ = once
    }

    public static func logger(_ label: String) -> Logger { Logger(label: label) }
}

/// Writes to stdout / stderr.
public enum Console {
    public static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Rewrites one progress line on stderr.
    public static func progress(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
    }

    public static func progressDone() {
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// True when stderr is a terminal: progress lines go there only then.
    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Prints an Encodable value as pretty JSON on stdout.
    public static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
