import Foundation
import Core
import Postgres
import Testing
import TestSupport

/// Migration 020 on a database that already has per-run assistant findings: they are kept (as `assistant_runs`),
/// and the new `assistant_findings` has RLS on and one row per user, kind and subject.
@Suite struct FindingsMigrationTests {
    @Test func theOldPerRunRowsAreKeptAndTheNewTableIsUniquePerSubject() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let service = try MigrationSet.service()
            let before = MigrationSet(name: "service", files: service.files.filter { $0.name < "020_" })
            try await Migrator(pool: db.pool).migrate([MigrationSet.dev(), before])
            let user: UUID = try await db.pool.query(
                """
                WITH account AS (INSERT INTO auth.users (id) VALUES (gen_random_uuid()) RETURNING id)
                INSERT INTO users (id, email, username) SELECT id, 'a@example.test', 'a' FROM account RETURNING id
                """)[0].decode("id")
            let run: UUID = try await db.pool.query("INSERT INTO job_runs (kind) VALUES ('assist') RETURNING id")[0].decode("id")
            try await db.pool.query(
                """
                INSERT INTO assistant_findings (run_id, user_id, summary, stop_reason, prompt_id, prompt_version, model)
                VALUES ($1, $2, 'Old summary', 'completed', 'assistant', 1, 'gpt-4o-mini')
                """, [run, user])

            let report = try await Migrator(pool: db.pool).migrate([MigrationSet.dev(), service])
            #expect(report.applied.contains { $0.contains("020_") })
            let kept = try await db.pool.query("SELECT summary, prompt_tokens, dropped FROM assistant_runs WHERE run_id = $1", [run])
            #expect(try kept.map { try $0.decode("summary", as: String.self) } == ["Old summary"])
            #expect(try kept.first?.decode("dropped", as: JSONValue.self) == .array([]))

            let insert = """
                INSERT INTO assistant_findings (user_id, kind, subject_key, fingerprint, severity, title, suggestion)
                VALUES ($1, 'conflict', 'conflict:a:b', 'f', 'high', 't', 's')
                """
            try await db.pool.query(insert, [user])
            await #expect(throws: PostgresError.self) { try await db.pool.query(insert, [user]) }
            let rls: Bool = try await db.pool.query(
                "SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass('assistant_findings')")[0].decode("relrowsecurity")
            #expect(rls)
        }
    }
}
