import Foundation
import Migrations
import Postgres

/// A private, fully migrated schema in the test database for one test, so tests run in parallel without
/// seeing each other's rows. The database comes from `DATABASE_URL` (scripts/test sets it); without it the
/// test fails with a message saying how to run the tests, never skips.
public struct TestDatabase: Sendable {
    public let schema: String
    public let configuration: PostgresConfiguration
    public let pool: PostgresPool

    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            "DATABASE_URL is not set: run the tests with scripts/test, which starts the project's local PostgreSQL and sets it"
        }
    }

    /// The configuration of the shared test database itself.
    public static func baseConfiguration() throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else { throw NotConfigured() }
        return PostgresConfiguration(connectionString: url)
    }

    /// Creates a new schema, applies the dev and service migrations in it, and returns a pool bound to it.
    public static func create(migrate: Bool = true, maxConnections: Int = 4) async throws -> TestDatabase {
        let base = try baseConfiguration()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try await PostgresConnection.connect(base)
        try await admin.query("CREATE SCHEMA \(schema)")
        admin.close()
        var configuration = base
        configuration.options = "-c search_path=\(schema)"
        let pool = PostgresPool(configuration: configuration, maxConnections: maxConnections)
        if migrate {
            try await Migrator(pool: pool).migrate([MigrationSet.dev(), MigrationSet.service()])
        }
        return TestDatabase(schema: schema, configuration: configuration, pool: pool)
    }

    /// Runs `body` with a fresh database and drops it afterwards, whatever happens.
    public static func with<T: Sendable>(
        migrate: Bool = true, maxConnections: Int = 4, _ body: (TestDatabase) async throws -> T
    ) async throws -> T {
        let database = try await create(migrate: migrate, maxConnections: maxConnections)
        do {
            let value = try await body(database)
            await database.drop()
            return value
        } catch {
            await database.drop()
            throw error
        }
    }

    /// The connection string with this schema selected, for child processes (the CLI under test).
    public var connectionURL: String {
        let separator = configuration.connectionString.contains("?") ? "&" : "?"
        return configuration.connectionString + separator + "options=-c%20search_path%3D\(schema)"
    }

    public func drop() async {
        await pool.shutdown()
        guard let base = try? Self.baseConfiguration(), let admin = try? await PostgresConnection.connect(base) else { return }
        _ = try? await admin.query("DROP SCHEMA \(schema) CASCADE")
        admin.close()
    }
}
