import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// A job's clock is never behind the database's: reminders and watermarks are read against the database clock.
@Suite struct DatabaseClockTests {
    @Test func theJobClockIsNeverBehindTheDatabaseClock() async throws {
        try await TestDatabase.with { db in
            let before: Date = try await db.pool.query("SELECT clock_timestamp() AS now")[0].decode("now")
            let now = await DatabaseClock.now(db.pool)
            #expect(now >= before)
            #expect(now >= Date().addingTimeInterval(-1), "nor behind the host's")
        }
    }

    @Test func aDeadDatabaseLeavesTheHostClock() async throws {
        var configuration = PostgresConfiguration(connectionString: "postgresql://nobody@127.0.0.1:9/none")
        configuration.connectTimeout = 1
        let pool = PostgresPool(configuration: configuration, maxConnections: 1, acquireTimeout: 2)
        let before = Date()
        let now = await DatabaseClock.now(pool)
        await pool.shutdown()
        #expect(now >= before && now <= Date())
    }
}
