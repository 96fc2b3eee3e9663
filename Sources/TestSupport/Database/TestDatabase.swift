import Foundation
package import Postgres

/// A private, fully migrated schema in the test database for one test, so tests run in parallel without
/// seeing each other's rows. The database comes from `DATABASE_URL` (scripts/test sets it); without it the
/// test fails with a message saying how to run the tests, never skips.
package struct TestDatabase: Sendable {
    package let schema: String
    package let configuration: PostgresConfiguration
    package let pool: PostgresPool

    package struct NotConfigured: Error, CustomStringConvertible {
        package var description: String {
            "DATABASE_URL is not set: run the tests with scripts/test, which starts the project's local PostgreSQL and sets it"
        }
    }

    /// The configuration of the shared test database itself.
    package static func baseConfiguration() throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else { throw NotConfigured() }
        return PostgresConfiguration(connectionString: url)
    }

    /// The session TimeZone tests run in unless they ask for another: not UTC, so code that depends on the
    /// session's zone (instead of binding UTC instants) fails its tests.
    package static let sessionTimeZone: String? = "America/Los_Angeles"

    /// What Supabase's default privileges give a new table in the schema: everything to anon, authenticated and
    /// service_role (projects before 2026-10-30), or nothing (since then).
    package enum DefaultGrants: String, Sendable, CaseIterable {
        case grantAll
        case grantNothing
    }

    /// Creates a new schema, applies the dev and service migrations in it, and returns a pool bound to it.
    /// The schema is the app's `public`: Supabase's stand-ins (`auth`, `extensions`, the roles) are shared by all.
    /// - Parameters:
    ///   - sessionTimeZone: the connections' TimeZone setting; the service must not depend on it.
    ///   - defaultGrants: the default privileges in effect while the tables are created.
    package static func create(
        migrate: Bool = true, maxConnections: Int = 4, sessionTimeZone: String? = Self.sessionTimeZone, defaultGrants: DefaultGrants = .grantNothing
    ) async throws -> TestDatabase {
        let base = try baseConfiguration()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try await PostgresConnection.connect(base)
        do {
            try await admin.query("CREATE SCHEMA \(schema)")
            if defaultGrants == .grantAll {
                try await admin.execute(script: ensureRolesSQL)
                try await admin.query(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA \(schema) GRANT ALL ON TABLES TO anon, authenticated, service_role")
                try await admin.query(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA \(schema) GRANT ALL ON SEQUENCES TO anon, authenticated, service_role")
                try await admin.query(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA \(schema) GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role")
            }
        } catch {
            admin.close()
            throw error
        }
        admin.close()
        var configuration = base
        // `extensions` holds uuid-ossp, as on Supabase.
        configuration.options = "-c search_path=\(schema),extensions" + (sessionTimeZone.map { " -c TimeZone=\($0)" } ?? "")
        let pool = PostgresPool(configuration: configuration, maxConnections: maxConnections)
        if migrate {
            try await Migrator(pool: pool).migrate([MigrationSet.dev(), MigrationSet.service()])
        }
        return TestDatabase(schema: schema, configuration: configuration, pool: pool)
    }

    /// The API roles, for default privileges set before the dev migration creates them (cluster-wide, so a
    /// concurrent creation is not an error).
    static let ensureRolesSQL = """
        DO $$
        DECLARE name TEXT;
        BEGIN
          FOREACH name IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = name) THEN
              BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', name);
              EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
              END;
            END IF;
          END LOOP;
        END
        $$;
        """

    /// Runs `body` with a fresh database and drops it afterwards, whatever happens.
    package static func with<T: Sendable>(
        migrate: Bool = true, maxConnections: Int = 4, sessionTimeZone: String? = Self.sessionTimeZone, defaultGrants: DefaultGrants = .grantNothing,
        _ body: (TestDatabase) async throws -> T
    ) async throws -> T {
        await gate.acquire()
        do {
            let database = try await create(
                migrate: migrate, maxConnections: maxConnections, sessionTimeZone: sessionTimeZone, defaultGrants: defaultGrants)
            let value: T
            do {
                value = try await body(database)
            } catch {
                await database.drop()
                throw error
            }
            await database.drop()
            await gate.release()
            return value
        } catch {
            await gate.release()
            throw error
        }
    }

    /// Databases in use at once. Swift Testing starts every test together, and each database holds up to
    /// `maxConnections` plus an admin connection: without a bound the suite outgrew the local server's 200 connections.
    static let gate = DatabaseGate(limit: 24)

    /// The connection string with this schema selected, for child processes (the CLI under test).
    package var connectionURL: String {
        let separator = configuration.connectionString.contains("?") ? "&" : "?"
        let options = (configuration.options ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return configuration.connectionString + separator + "options=" + options
    }

    package func drop() async {
        await pool.shutdown()
        guard let base = try? Self.baseConfiguration(), let admin = try? await PostgresConnection.connect(base) else { return }
        _ = try? await admin.query("DROP SCHEMA \(schema) CASCADE")
        admin.close()
    }
}

/// A counting semaphore for ``TestDatabase/with``: waiting is a suspended task, not a blocked thread.
actor DatabaseGate {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = limit }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
