package import Core
package import Foundation
package import Postgres

/// What the parent sees of her assistant, each thing once: her open findings in the assistant's rank (those it did not
/// rank after them, most severe and soonest first) with its notes, then its summary, suggested actions and the
/// reminders its run created. `assist --show` prints it (text, `--json`) from the stored rows, and an assistant run
/// prints the same from its own answer.
package struct AssistantView: Sendable, Codable {
    /// A reminder the assistant created, with its time on the user's clock ("Monday 2026-12-07 18:00").
    package struct Reminder: Sendable, Hashable, Codable {
        package var title: String
        package var at: Date
        package var local: String
    }

    package var userID: UUID
    package var userName: String
    package var findings: [OpenFinding]
    /// The last answered run's summary and suggested actions (nil and empty before any).
    package var summary: String?
    var suggestedActions: [String]
    package var remindersCreated: [Reminder]
    /// The run they come from.
    package var runID: UUID?

    package init(userID: UUID, userName: String, findings: [OpenFinding], summary: String?, suggestedActions: [String],
                 remindersCreated: [Reminder], runID: UUID?) {
        self.userID = userID
        self.userName = userName
        // A stable sort: the assistant's ranks first, the others in the order they came (severity, then due time).
        self.findings = findings.enumerated().sorted { ($0.element.rank ?? Int.max, $0.offset) < ($1.element.rank ?? Int.max, $1.offset) }
            .map(\.element)
        self.summary = summary
        self.suggestedActions = suggestedActions
        self.remindersCreated = remindersCreated
        self.runID = runID
    }

    package var text: String {
        guard !findings.isEmpty || summary != nil else { return "Nothing needs \(userName)'s attention." }
        var lines = findings.isEmpty ? ["Nothing is open for \(userName) now."] : ["What needs \(userName)'s attention:"]
        lines += findings.map(ProactiveReport.line)
        if let summary { lines += ["", "Assistant: \(summary)"] }
        if !suggestedActions.isEmpty { lines += ["Suggested:"] + suggestedActions.map { "  - \($0)" } }
        if !remindersCreated.isEmpty { lines += ["Reminders created:"] + remindersCreated.map { "  - \($0.local): \($0.title)" } }
        return lines.joined(separator: "\n")
    }

    /// One user's view from the stored rows: open findings, the last answered assistant run and the reminders it
    /// created. Nil when no such user exists.
    package static func load(_ user: UUID, zones: UserTimeZonePolicy, pool: PostgresPool) async throws -> AssistantView? {
        guard let person = try await AssistService.people([user], zones: zones, pool: pool)[user] else { return nil }
        return try await pool.withConnection { db in
            let findings = try await OpenFinding.load([user], on: db)[user] ?? []
            let run = try await db.query(
                """
                SELECT run_id, summary, suggested_actions FROM assistant_runs
                WHERE user_id = $1 AND left(summary, length($2)) <> $2 ORDER BY created_at DESC LIMIT 1
                """, [user, AssistStore.noAnswerPrefix]).first
            let runID: UUID? = try run?.decode("run_id")
            let actions: JSONValue? = try run?.decode("suggested_actions")
            var reminders: [Reminder] = []
            if let runID { reminders = try await Self.reminders(run: runID, user: user, zone: person.zone, on: db) }
            return AssistantView(userID: user, userName: person.name, findings: findings, summary: try run?.decode("summary"),
                                 suggestedActions: actions?.arrayValue?.compactMap(\.stringValue) ?? [], remindersCreated: reminders,
                                 runID: runID)
        }
    }

    /// The reminders run `run` created for `user`, soonest first.
    static func reminders(run: UUID, user: UUID, zone: TimeZone, on db: PostgresConnection) async throws -> [Reminder] {
        let clock = WallClock(timeZone: zone)
        return try await db.query(
            """
            SELECT title, extract(epoch FROM reminder_time)::float8 AS at_epoch FROM reminders
            WHERE run_id = $1 AND user_id = $2 AND origin = 'assistant' ORDER BY reminder_time, title
            """, [run, user]).map { row in
            let at = Date(timeIntervalSince1970: try row.decode("at_epoch"))
            let (day, time) = clock.wallTime(of: at)
            return Reminder(title: try row.decode("title"), at: at, local: "\(day.weekdayName) \(day.iso) \(time.hourMinute)")
        }
    }
}
