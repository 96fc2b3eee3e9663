import Chrono
import Foundation
import Postgres

/// Reads what the rules need for a batch of users in five set-based queries (zones, events, RSVPs, deadlines,
/// reminders), whatever the batch size. Windows are read a day wider on each side than any user's local
/// window so every time zone is covered; the rules cut them to each user's own days.
///
/// Instants are read with `extract(epoch ...)`, which is right for `timestamptz` and for the app's UTC
/// `timestamp` columns alike.
public struct ProactiveReader: Sendable {
    public let options: ProactiveOptions

    public init(options: ProactiveOptions = ProactiveOptions()) { self.options = options }

    public func read(_ users: [UUID], now: Date, on db: PostgresConnection) async throws -> ProactiveRows {
        var rows = ProactiveRows()
        guard !users.isEmpty else { return rows }
        rows.zones = try await UserZones.load(users, policy: options.zones, on: db).zones
        let present = Array(rows.zones.keys)
        let utcToday = LocalDate(now, in: UserZones.utc)
        let from = utcToday.adding(days: -2)
        let through = utcToday.adding(days: options.horizonDays + 2)

        // Events of the user's conversations, timed by `date`, `time` and `end_time` (the app's columns) in the user's
        // zone, as `check_conflicts` times them (the service's `starts_at` would be stale after the app moves an event),
        // minus those the user declined (an RSVP answered "no" for that day).
        for row in try await db.query(
            """
            SELECT user_id, id, title, date, time, end_time, location FROM (
              SELECT cp.user_id, e.id, e.title, e.date, e.time, e.end_time, e.location,
                     row_number() OVER (PARTITION BY cp.user_id ORDER BY e.date, e.time NULLS FIRST, e.id) AS n
              FROM conversation_participants cp
              JOIN calendar_events e ON e.conversation_id = cp.conversation_id
              WHERE cp.user_id = ANY($1::uuid[]) AND e.date BETWEEN $2::date AND $3::date
                AND NOT EXISTS (SELECT 1 FROM rsvp_tracking r
                                WHERE r.user_id = cp.user_id AND r.conversation_id = e.conversation_id
                                  AND r.event_date = e.date AND r.response = 'no')
            ) ranked WHERE n <= $4
            """, [present, from, through, options.maxEventsPerUser]) {
            rows.events.append(.init(
                userID: try row.decode("user_id"), id: try row.decode("id"), title: try row.decode("title"),
                date: try row.decode("date"), time: try row.decode("time"), endTime: try row.decode("end_time"),
                location: try row.decode("location")))
        }

        // RSVPs not answered, of conversations the user is still in, whose event has not passed.
        for row in try await db.query(
            """
            SELECT r.user_id, r.id, r.event_name, r.deadline, r.event_date,
                   COALESCE(NULLIF(u.display_name, ''), u.username) AS requested_by,
                   COALESCE(c.name, 'a chat') AS conversation
            FROM rsvp_tracking r
            JOIN conversations c ON c.id = r.conversation_id
            LEFT JOIN users u ON u.id = r.requested_by
            WHERE r.user_id = ANY($1::uuid[]) AND COALESCE(r.status, 'pending') = 'pending' AND r.response IS NULL
              AND r.event_date >= $2::date AND (r.event_date <= $3::date OR r.deadline <= $3::date)
              AND EXISTS (SELECT 1 FROM conversation_participants cp WHERE cp.conversation_id = r.conversation_id AND cp.user_id = r.user_id)
            """, [present, from, utcToday.adding(days: options.rsvpDays + 2)]) {
            rows.rsvps.append(.init(
                userID: try row.decode("user_id"), id: try row.decode("id"), eventName: try row.decode("event_name"),
                deadline: try row.decode("deadline"), eventDate: try row.decode("event_date"),
                requestedBy: try row.decode("requested_by"), conversation: try row.decode("conversation")))
        }

        // Deadlines not done in the window.
        for row in try await db.query(
            """
            SELECT d.user_id, d.id, d.task, d.deadline, d.deadline_time, extract(epoch FROM d.due_at)::float8 AS due_epoch,
                   COALESCE(d.status, 'pending') AS status
            FROM deadlines d
            WHERE d.user_id = ANY($1::uuid[]) AND COALESCE(d.status, 'pending') NOT IN ('completed', 'done', 'dismissed', 'cancelled')
              AND d.deadline BETWEEN $2::date AND $3::date
            """, [present, from, utcToday.adding(days: options.deadlineDays + 2)]) {
            rows.deadlines.append(.init(
                userID: try row.decode("user_id"), id: try row.decode("id"), task: try row.decode("task"),
                deadline: try row.decode("deadline"), time: try row.decode("deadline_time"),
                dueAt: try row.decode("due_epoch", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
                status: try row.decode("status")))
        }

        // Pending reminders coming due.
        for row in try await db.query(
            """
            SELECT r.user_id, r.id, r.title, extract(epoch FROM r.reminder_time)::float8 AS at_epoch
            FROM reminders r
            WHERE r.user_id = ANY($1::uuid[]) AND COALESCE(r.status, 'pending') = 'pending'
              AND extract(epoch FROM r.reminder_time) > $2::float8 AND extract(epoch FROM r.reminder_time) <= $3::float8
            """, [present, now.timeIntervalSince1970, now.timeIntervalSince1970 + Double(options.reminderHours) * 3600]) {
            rows.reminders.append(.init(
                userID: try row.decode("user_id"), id: try row.decode("id"), title: try row.decode("title"),
                at: Date(timeIntervalSince1970: try row.decode("at_epoch"))))
        }
        return rows
    }
}
