import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct MigrationTests {
    @Test func secondRunAppliesNothing() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let migrator = Migrator(pool: db.pool)
            let sets = [try MigrationSet.dev(), try MigrationSet.service()]
            let first = try await migrator.migrate(sets)
            #expect(first.applied.count == sets.map(\.files.count).reduce(0, +))
            #expect(first.applied.contains("service/002_adopt_ai_tables.sql"))
            let second = try await migrator.migrate(sets)
            #expect(second.applied.isEmpty)
            #expect(second.alreadyApplied == first.applied)
        }
    }

    /// Waiting for another migrator is one statement: it must outlast the connection's statement_timeout (the test
    /// suite's schemas queue on one lock; on a loaded machine that wait passed the default 300 s), and the bound
    /// must be back afterwards.
    @Test func aMigratorWaitsBeyondItsStatementTimeoutAndRestoresIt() async throws {
        try await TestDatabase.with(migrate: false) { db in
            var configuration = db.configuration
            configuration.statementTimeout = 1
            // One connection: the one the migrator will use.
            let pool = PostgresPool(configuration: configuration, maxConnections: 1)
            let pid: Int = try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode("pid")
            let holder = try await PostgresConnection.connect(db.configuration)
            // The holder queues behind the suite's other migrators like any migrator.
            try await holder.query("SELECT set_config('lock_timeout', '600s', false), set_config('statement_timeout', '600s', false)")
            try await holder.query("SELECT pg_advisory_lock(hashtext('messageai_migrations'))")
            let set = MigrationSet(name: "x", files: [.init(name: "001_a.sql", sql: "CREATE TABLE a (n int);")])
            let migrating = Task { try await Migrator(pool: pool).migrate([set]) }
            // Until the migrator waits on the lock, then past its 1 s statement bound.
            var waiting = false
            for _ in 0..<600 where !waiting {
                try await Task.sleep(for: .milliseconds(100))
                waiting = try await holder.query(
                    "SELECT count(*) AS n FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted",
                    [pid])[0].decode("n", as: Int.self) == 1
            }
            #expect(waiting, "the migrator never waited on the lock")
            try await Task.sleep(for: .milliseconds(2500))
            try await holder.query("SELECT pg_advisory_unlock(hashtext('messageai_migrations'))")
            holder.close()
            let report = try await migrating.value
            #expect(report.applied == ["x/001_a.sql"])
            let bound: String = try await pool.query("SELECT current_setting('statement_timeout') AS t")[0].decode("t")
            #expect(bound == "1s")
            await pool.shutdown()
        }
    }

    /// A file that meets another database's migration on a role ("tuple concurrently updated", XX000) is rolled back
    /// and run again, a bounded number of times; any other failure is not retried.
    @Test func aCatalogRaceIsRetriedAndOtherFailuresAreNot() async throws {
        try await TestDatabase.with(migrate: false) { db in
            try await db.pool.query("CREATE SEQUENCE attempts")
            func file(_ name: String, failing: String, code: String) -> MigrationSet.File {
                .init(name: name, sql: """
                    DO $$ BEGIN IF nextval('attempts') \(failing) THEN
                      RAISE EXCEPTION 'tuple concurrently updated' USING ERRCODE = '\(code)'; END IF; END $$;
                    CREATE TABLE \(name.dropFirst(4).dropLast(4)) (n int);
                    """)
            }
            let once = MigrationSet(name: "x", files: [file("001_raced.sql", failing: "= 1", code: "XX000")])
            let report = try await Migrator(pool: db.pool).migrate([once])
            #expect(report.applied == ["x/001_raced.sql"])
            #expect(try await db.pool.query("SELECT last_value FROM attempts")[0].decode("last_value", as: Int.self) == 2)

            try await db.pool.query("ALTER SEQUENCE attempts RESTART")
            let always = MigrationSet(name: "y", files: [file("001_never.sql", failing: "> 0", code: "XX000")])
            await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).migrate([always]) }
            #expect(try await db.pool.query("SELECT last_value FROM attempts")[0].decode("last_value", as: Int.self) == 4)

            try await db.pool.query("ALTER SEQUENCE attempts RESTART")
            let other = MigrationSet(name: "z", files: [file("001_other.sql", failing: "> 0", code: "P0001")])
            await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).migrate([other]) }
            #expect(try await db.pool.query("SELECT last_value FROM attempts")[0].decode("last_value", as: Int.self) == 1)
        }
    }

    @Test func editedAppliedFileIsRefusedByName() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let migrator = Migrator(pool: db.pool)
            let original = MigrationSet(name: "x", files: [.init(name: "001_a.sql", sql: "CREATE TABLE a (n int);")])
            try await migrator.migrate([original])
            let edited = MigrationSet(name: "x", files: [
                .init(name: "001_a.sql", sql: "CREATE TABLE a (n bigint);"),
                .init(name: "002_b.sql", sql: "CREATE TABLE b (n int);"),
            ])
            let error = await #expect(throws: MigrationError.self) { try await migrator.migrate([edited]) }
            #expect(error?.code == .edited)
            #expect(error?.description.contains("x/001_a.sql") == true)
            #expect(error?.description.contains("edited") == true)
            // Nothing new was applied.
            let b = try await db.pool.query("SELECT to_regclass('b') IS NULL AS missing")[0].decode("missing", as: Bool.self)
            #expect(b)
        }
    }

    @Test func failingFileIsRolledBackAndNamed() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let broken = MigrationSet(name: "x", files: [
                .init(name: "001_ok.sql", sql: "CREATE TABLE ok (n int);"),
                .init(name: "002_bad.sql", sql: "CREATE TABLE half (n int); SELECT * FROM no_such_table;"),
            ])
            let error = await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).migrate([broken]) }
            #expect(error?.code == .failed)
            #expect(error?.description.contains("x/002_bad.sql") == true)
            let row = try await db.pool.query(
                "SELECT to_regclass('ok') IS NOT NULL AS ok, to_regclass('half') IS NULL AS no_half, (SELECT count(*) FROM messageai_migrations) AS n")[0]
            #expect(try row.decode("ok", as: Bool.self))
            #expect(try row.decode("no_half", as: Bool.self))
            #expect(try row.decode("n", as: Int.self) == 1)
        }
    }

    @Test func serviceWithoutCoreTablesSaysWhatToDo() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let error = await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).migrate([try MigrationSet.service()]) }
            #expect(error?.code == .failed)
            #expect(error?.description.contains("migrate --dev") == true)
        }
    }
}
