package import Core
import Foundation

/// One ordered set of SQL files ("dev": a local stand-in for the app's Supabase project, i.e. Supabase's auth
/// schema and roles plus the PRD's section 7 schema; "service": adopts the app's AI tables and creates what this
/// service owns). Files are applied in name order.
package struct MigrationSet: Sendable {
    package struct File: Sendable {
        package let name: String
        package let sql: String

        package init(name: String, sql: String) {
            self.name = name
            self.sql = sql
        }
    }

    package let name: String
    package let files: [File]

    package init(name: String, files: [File]) {
        self.name = name
        self.files = files.sorted { $0.name < $1.name }
    }

    /// The sets shipped with the binary (compiled in, so `migrate` needs no file beside it).
    package static func bundled(_ name: String) throws -> MigrationSet {
        let directory = "migrations/\(name)"
        let names = EmbeddedFiles.names(in: directory).filter { $0.hasSuffix(".sql") }
        guard !names.isEmpty else { throw MigrationError(.notEmbedded, "no migration set '\(name)' is embedded in this binary") }
        let files = try names.map { file in
            guard let sql = EmbeddedFiles.all["\(directory)/\(file)"].flatMap({ String(data: $0, encoding: .utf8) }) else {
                throw MigrationError(.notEmbedded, "embedded migration \(directory)/\(file) is not UTF-8")
            }
            return File(name: file, sql: sql)
        }
        return MigrationSet(name: name, files: files)
    }

    /// Supabase's stand-ins and the app's schema, for a local database (a Supabase project already has them).
    package static func dev() throws -> MigrationSet { try bundled("dev") }
    /// The service's migrations: adopt the app's AI tables, create the service's own, row level security.
    package static func service() throws -> MigrationSet { try bundled("service") }
}

/// Why migrating, or running on, a database failed, with a `code` callers branch on and a message that says what to do.
/// One struct for the module, in the style of AsyncHTTPClient's `HTTPClientError` and postgres-nio's `PSQLError`.
package struct MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    package typealias Code = ErrorCode<MigrationError>

    package let code: Code
    /// The whole user-visible text.
    package let message: String
    /// For `.notMigrated`: the service migrations the database has not applied, in order.
    package let pending: [String]

    package init(_ code: Code, _ message: String, pending: [String] = []) {
        self.code = code
        self.message = message
        self.pending = pending
    }

    package var description: String { message }
}

/// What a migrate run did.
package struct MigrationReport: Sendable, Codable {
    package var applied: [String] = []
    package var alreadyApplied: [String] = []
}

/// Applies migration sets: each file in its own transaction together with its record in
/// `messageai_migrations`, so a failing file leaves nothing behind and a re-run applies nothing twice.
/// An applied file whose text changed stops everything before any new file is applied.
package struct Migrator: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    static let ledgerSQL = """
        CREATE TABLE IF NOT EXISTS messageai_migrations (
          set_name TEXT NOT NULL,
          name TEXT NOT NULL,
          checksum TEXT NOT NULL,
          applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          PRIMARY KEY (set_name, name)
        )
        """

    @discardableResult
    package func migrate(_ sets: [MigrationSet]) async throws -> MigrationReport {
        try await pool.withConnection { connection in
            // One migrator at a time per database; the lock ends with the session's use of it. Waiting for another
            // migrator is expected, so this wait gets 10 minutes instead of the connection's lock_timeout and
            // statement_timeout (the wait is one statement: with the default 300 s statement bound, a queue of
            // migrators, such as the test suite's schemas on a loaded machine, failed with SQLSTATE 57014); the
            // migrations themselves run under the connection's bounds again.
            let row = try await connection.query(
                "SELECT current_setting('lock_timeout') AS l, current_setting('statement_timeout') AS s")[0]
            let previous: (lock: String, statement: String) = (try row.decode("l"), try row.decode("s"))
            let restore = "SELECT set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false)"
            try await connection.query("SELECT set_config('lock_timeout', '600s', false), set_config('statement_timeout', '600s', false)")
            do {
                try await connection.query("SELECT pg_advisory_lock(hashtext('messageai_migrations'))")
                try await connection.query(restore, [previous.lock, previous.statement])
            } catch {
                _ = try? await connection.query(restore, [previous.lock, previous.statement])
                throw error
            }
            do {
                let report = try await migrate(sets, on: connection)
                try await connection.query("SELECT pg_advisory_unlock(hashtext('messageai_migrations'))")
                return report
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext('messageai_migrations'))")
                throw error
            }
        }
    }

    private func migrate(_ sets: [MigrationSet], on connection: PostgresConnection) async throws -> MigrationReport {
        try await connection.query(Self.ledgerSQL)
        var applied: [String: String] = [:]
        for row in try await connection.query("SELECT set_name, name, checksum FROM messageai_migrations") {
            applied["\(try row.decode("set_name", as: String.self))/\(try row.decode("name", as: String.self))"] =
                try row.decode("checksum", as: String.self)
        }
        // Check every applied file first, so an edited file stops the run before anything new is applied.
        for set in sets {
            for file in set.files {
                let key = "\(set.name)/\(file.name)"
                guard let recorded = applied[key] else { continue }
                let current = try await checksum(file.sql, on: connection)
                if current != recorded {
                    throw MigrationError(
                        .edited, "migration \(key) was edited after it was applied (checksum \(recorded) recorded, \(current) now); "
                            + "restore it and put the change in a new migration file")
                }
            }
        }
        var report = MigrationReport()
        for set in sets {
            for file in set.files {
                let key = "\(set.name)/\(file.name)"
                if applied[key] != nil {
                    report.alreadyApplied.append(key)
                    continue
                }
                do {
                    try await Self.catalogRace.run(retryingWhen: Self.isCatalogRace) { _ in
                        try await connection.transaction { connection in
                            try await connection.execute(script: file.sql)
                            try await connection.query(
                                "INSERT INTO messageai_migrations (set_name, name, checksum) VALUES ($1, $2, md5($3))",
                                [set.name, file.name, file.sql])
                        }
                    }
                } catch let error as PostgresError {
                    var hint = ""
                    if set.name == "service", error.sqlState == .undefinedTable {
                        hint = " (the app's core tables are missing: on a local database run `messageai-jobs migrate --dev`)"
                    }
                    throw MigrationError(.failed, "migration \(key) failed and was rolled back: \(error)\(hint)")
                }
                report.applied.append(key)
            }
        }
        return report
    }

    /// Roles are the cluster's, not the database's: a migration that alters one (the dev stand-ins' `ALTER ROLE`)
    /// while another database of the same cluster migrates fails with "tuple concurrently updated" (XX000), which the
    /// advisory lock, held per database, cannot prevent. The file was rolled back whole, so it is run again.
    static let catalogRace = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: .full)

    static func isCatalogRace(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.sqlState == .internalError && error.message.contains("tuple concurrently updated")
    }

    private func checksum(_ sql: String, on connection: PostgresConnection) async throws -> String {
        try await connection.query("SELECT md5($1) AS sum", [sql])[0].decode("sum")
    }
}

extension ErrorCode where Domain == MigrationError {
    /// The binary carries no such migration set, or a file of it is not UTF-8.
    package static var notEmbedded: Self { Self("notEmbedded") }
    /// A migration file changed after the database applied it; nothing new was applied.
    package static var edited: Self { Self("edited") }
    /// A migration's SQL failed; its transaction was rolled back.
    package static var failed: Self { Self("failed") }
    /// The database lacks service migrations this binary carries (`pending`); a job refuses to start.
    package static var notMigrated: Self { Self("notMigrated") }
}
