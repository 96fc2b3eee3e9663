import Foundation
import Postgres

/// A new schema in the configured database, migrated, dropped afterwards: a benchmark never touches real data.
enum ScratchSchema {
    /// Runs `body` with a pool of `connections` bound to a fresh schema named `prefix` plus random hex; the schema is
    /// dropped whether `body` returns or throws.
    static func with<T: Sendable>(
        _ database: PostgresConfiguration, prefix: String = "bench_", connections: Int, _ body: (PostgresPool) async throws -> T
    ) async throws -> T {
        let schema = prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let admin = try await PostgresConnection.connect(database)
        defer { admin.close() }
        try await admin.query("CREATE SCHEMA \(schema)")
        var configuration = database
        configuration.options = [database.options, "-c search_path=\(schema)"].compactMap { $0 }.joined(separator: " ")
        let pool = PostgresPool(configuration: configuration, maxConnections: connections)
        let outcome: Swift.Result<T, any Error>
        do {
            try await Migrator(pool: pool).migrate([MigrationSet.dev(), MigrationSet.service()])
            outcome = .success(try await body(pool))
        } catch {
            outcome = .failure(error)
        }
        await pool.shutdown()
        _ = try? await admin.query("DROP SCHEMA \(schema) CASCADE")
        return try outcome.get()
    }
}
