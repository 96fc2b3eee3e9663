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
