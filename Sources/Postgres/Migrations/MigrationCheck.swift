
extension MigrationError {
    /// Refuses to run a job on a database whose schema is older than this binary: a command that needs the service's
    /// tables checks `messageai_migrations` first, so an unmigrated database gets one clear sentence instead of a raw
    /// `relation ... does not exist` from the middle of a job. `database` is "host:port/database", never credentials.
    static func notMigrated(database: String, pending: [String]) -> MigrationError {
        MigrationError(.notMigrated,
                       "the database at \(database) is not migrated (\(pending.count) pending): run `messageai-jobs migrate`",
                       pending: pending)
    }
}

extension Migrator {
    /// The files of `sets` not yet recorded in `messageai_migrations` (all of them when the ledger does not exist).
    package func pending(_ sets: [MigrationSet]) async throws -> [String] {
        try await pool.withConnection { connection in
            try await Self.pending(sets, on: connection)
        }
    }

    /// Throws `MigrationError.Code.notMigrated` unless every service migration this binary carries is applied. One query; read-only.
    package func requireMigrated() async throws {
        try await pool.withConnection { connection in
            let pending = try await Self.pending([try MigrationSet.service()], on: connection)
            guard pending.isEmpty else { throw MigrationError.notMigrated(database: connection.address, pending: pending) }
        }
    }

    static func pending(_ sets: [MigrationSet], on connection: PostgresConnection) async throws -> [String] {
        let ledger: String? = try await connection.query(
            "SELECT to_regclass('messageai_migrations')::text AS ledger")[0].decode("ledger")
        var applied = Set<String>()
        if ledger != nil {
            for row in try await connection.query("SELECT set_name, name FROM messageai_migrations") {
                applied.insert("\(try row.decode("set_name", as: String.self))/\(try row.decode("name", as: String.self))")
            }
        }
        return sets.flatMap { set in set.files.map { "\(set.name)/\($0.name)" } }.filter { !applied.contains($0) }
    }
}
