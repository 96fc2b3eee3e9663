import Foundation
import Postgres
import Testing
import TestSupport

/// A member may set her own reminder's status (the column she owns in the PRD's app), never the service's columns:
/// rewriting idempotency_key, item_key, run_id or created_by would let her make the service's writes collide.
@Suite struct ReminderGrantTests {
    @Test(arguments: AITablesOrigin.allCases, TestDatabase.DefaultGrants.allCases)
    func aMemberUpdatesOnlyTheColumnsSheOwns(origin: AITablesOrigin, grants: TestDatabase.DefaultGrants) async throws {
        try await SupabaseShape.with(grants, aiTables: origin) { db in
            let w = try await RowLevelSecurityTests.World.make(db)
            let run: UUID = try await db.pool.query("INSERT INTO job_runs (kind) VALUES ('scan') RETURNING id")[0].decode("id")
            for (column, value) in [("idempotency_key", "'reminder:stolen'"), ("item_key", "'reminder:stolen'"), ("run_id", "'\(run.uuidString)'::uuid"),
                                    ("created_by", "'user'"), ("origin", "'assistant'"), ("user_id", "user_id"), ("prompt_id", "'x'")] {
                #expect(await SupabaseShape.failure(
                    w.alice, db, "UPDATE reminders SET \(column) = \(value) WHERE user_id = $1", [w.alice]) == .insufficientPrivilege,
                        "\(column) (\(origin), \(grants))")
            }
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE reminders SET status = 'dismissed' WHERE user_id = $1", [w.alice]) == 1)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE reminders SET status = 'dismissed' WHERE user_id = $1", [w.bob]) == 0)
            #expect(await SupabaseShape.failure(
                w.alice, db, "INSERT INTO reminders (user_id, title, reminder_time, idempotency_key) VALUES ($1, 'x', now(), 'reminder:stolen')",
                [w.alice]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(nil, db, "UPDATE reminders SET status = 'dismissed'") == .insufficientPrivilege)
        }
    }
}
