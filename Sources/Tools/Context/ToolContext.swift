package import Core
package import Foundation
package import Postgres

/// Everything a tool needs besides its arguments, fixed before the model says anything: whom the tools serve,
/// which database, the user's clock, and the provenance stamped on rows the assistant writes. The model never
/// passes a user id; every query is scoped to `userID` from here.
package struct ToolContext: Sendable {
    package let userID: UUID
    package let pool: PostgresPool
    /// The user's zone (``UserTimeZonePolicy``: `user_settings`, else the default zone, else UTC): "today", wall-clock event times and offsets in results.
    package let timeZone: TimeZone
    /// The run's clock, fixed so every tool agrees on "today" and "in the past".
    package let now: Date
    package let provenance: ToolProvenance
    /// Shared by every tool built for the same run.
    package let reminderBudget: ReminderBudget
    /// The conflict rule `check_conflicts` applies: the nightly findings' rule, with the run's travel gap.
    package var conflicts = ScheduleConflicts()

    package init(
        userID: UUID, pool: PostgresPool, timeZone: TimeZone, now: Date, provenance: ToolProvenance, reminderBudget: ReminderBudget
    ) {
        self.userID = userID
        self.pool = pool
        self.timeZone = timeZone
        self.now = now
        self.provenance = provenance
        self.reminderBudget = reminderBudget
    }

    /// Checks that the user exists and reads their time zone (``UserTimeZonePolicy``).
    package static func load(
        userID: UUID, pool: PostgresPool, provenance: ToolProvenance, now: Date = Date(), maxRemindersPerRun: Int = 3,
        zones: UserTimeZonePolicy = .utc
    ) async throws -> ToolContext {
        let timeZone = try await userTimeZone(userID, pool: pool, zones: zones)
        return ToolContext(
            userID: userID, pool: pool, timeZone: timeZone, now: now, provenance: provenance,
            reminderBudget: ReminderBudget(limit: maxRemindersPerRun))
    }

    /// The user's zone: her `user_settings` row, else (no row, or not a valid zone: a warning) the policy's default.
    /// Throws when the user does not exist. Every job that needs one user's zone asks here.
    package static func userTimeZone(_ userID: UUID, pool: PostgresPool, zones: UserTimeZonePolicy = .utc) async throws -> TimeZone {
        let rows = try await pool.query(
            """
            SELECT s.time_zone FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = $1::uuid
            """, [userID])
        guard let row = rows.first else { throw ToolContextError.unknownUser(userID) }
        let setting = try row.decode("time_zone", as: String?.self)
        return zones.zone(user: userID.uuidString.lowercased(), setting: setting).zone
    }

    /// The user's calendar date at `now`.
    package var today: LocalDate { LocalDate(now, in: timeZone) }
}

/// What produced a row the assistant writes, recorded in the row's provenance columns.
package struct ToolProvenance: Sendable, Hashable {
    package let runID: UUID?
    package let promptID: String
    package let promptVersion: Int
    package let model: String

    package init(runID: UUID?, promptID: String, promptVersion: Int, model: String) {
        self.runID = runID
        self.promptID = promptID
        self.promptVersion = promptVersion
        self.model = model
    }
}

/// Why tools could not be built for a user.
package enum ToolContextError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownUser(UUID)

    package var description: String {
        switch self {
        case .unknownUser(let id):
            "no user with id \(id.uuidString.lowercased())"
        }
    }
}
