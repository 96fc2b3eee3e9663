package import Foundation
package import Postgres

/// The clock a job runs on: the later of this host's and the database's. The app reads every stored time (reminders,
/// due dates, watermarks) against the database clock, so a host whose clock is behind it must not write a reminder
/// that is already past there (issue 35: under a one-hour skew reminders were created 45 minutes in the past).
package enum DatabaseClock {
    /// Best effort: when the database cannot be asked, the host's clock (the job's own queries then say what failed).
    package static func now(_ pool: PostgresPool) async -> Date {
        let host = Date()
        guard let rows = try? await pool.query("SELECT clock_timestamp() AS now"),
              let database = try? rows.first?.decode("now", as: Date.self) else { return host }
        return max(host, database)
    }
}
