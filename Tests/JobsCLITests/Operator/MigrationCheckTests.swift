import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Commands refuse an unmigrated database with the migrate hint, before doing anything")
struct MigrationCheckTests {
    @Test("scan, worker, demo load, requests and runs on an empty database: the hint, non-zero, nothing started")
    func emptyDatabase() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let pending = try MigrationSet.service().files.count
            let hint = "is not migrated (\(pending) pending): run `messageai-jobs migrate`"
            for arguments in [["scan", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                              ["worker", "--once", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                              ["demo", "load"], ["requests", "list"], ["runs"],
                              ["extract", "--conversation", UUID().uuidString, "--provider", "rules", "--prompts", WorkerHarness.promptsPath]] {
                let result = try await JobsBinary.run(arguments, db)
                #expect(result.code != 0, "\(arguments[0]) exited 0")
                #expect(result.stderr.contains("the database at "), "\(arguments[0]): \(result.stderr)")
                #expect(result.stderr.contains(hint), "\(arguments[0]): \(result.stderr)")
                #expect(!result.stderr.contains("SQLSTATE"), "\(arguments[0]): \(result.stderr)")
                #expect(!result.stderr.contains("started"), "\(arguments[0]) started before the check: \(result.stderr)")
            }
            // Nothing was created: not even the ledger.
            let tables: Int = try await db.pool.query(
                "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1", [db.schema])[0].decode("n")
            #expect(tables == 0)
        }
    }

    @Test("one pending migration is counted; after `migrate` the command runs")
    func onePending() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let service = try MigrationSet.service()
            let older = MigrationSet(name: "service", files: Array(service.files.dropLast()))
            try await Migrator(pool: db.pool).migrate([MigrationSet.dev(), older])
            #expect(try await Migrator(pool: db.pool).pending([service]) == ["service/\(service.files.last!.name)"])
            let notMigrated = await #expect(throws: MigrationError.self) { try await Migrator(pool: db.pool).requireMigrated() }
            #expect(notMigrated?.code == .notMigrated)
            #expect(notMigrated?.pending == ["service/\(service.files.last!.name)"])
            #expect(notMigrated?.description.hasSuffix("is not migrated (1 pending): run `messageai-jobs migrate`") == true)
            let refused = try await JobsBinary.run(["runs"], db)
            #expect(refused.code != 0)
            #expect(refused.stderr.contains("is not migrated (1 pending): run `messageai-jobs migrate`"), "\(refused.stderr)")

            let migrate = try await JobsBinary.run(["migrate"], db)
            #expect(migrate.code == 0, "stderr: \(migrate.stderr)")
            let runs = try await JobsBinary.run(["runs"], db)
            #expect(runs.code == 0, "stderr: \(runs.stderr)")
            #expect(runs.stdout.contains("No runs"))
        }
    }

    @Test("the message names host, port and database, never the password")
    func noPasswordInTheMessage() async throws {
        try await TestDatabase.with(migrate: false) { db in
            // The local server trusts its clients, so a password in the URL is accepted and must not be echoed.
            let url = db.connectionURL.replacingOccurrences(of: "://postgres@", with: "://postgres:s3cret-pw-1234@")
            try #require(url != db.connectionURL, "the test database URL has an unexpected shape: \(db.connectionURL)")
            let child = try JobsBinary.child(["scan", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                                                     environment: ["DATABASE_URL": url])
            defer { child.kill() }
            #expect(try await child.waitForExit(timeout: 60).code != 0)
            #expect(child.stderr.contains("the database at 127.0.0.1:"), "\(child.stderr)")
            #expect(child.stderr.contains("/messageai_test is not migrated"), "\(child.stderr)")
            #expect(!child.stderr.contains("s3cret-pw-1234"))
        }
    }
}
