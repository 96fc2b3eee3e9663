import Core
package import Foundation
package import Postgres

/// Reads what the rules need for a batch of users in six set-based queries (zones, events, RSVPs, deadlines,
/// reminders, priority messages), whatever the batch size. Windows are read a day wider on each side than any user's local
/// window so every time zone is covered; the rules cut them to each user's own days.
///
/// Only open rows are read (`closed_at IS NULL`; deadlines not done or cancelled; RSVPs not answered), of
/// conversations the user is still in: a finding whose cause closed (an RSVP answered, a slip handed in, an event
/// moved or cancelled, a member who left) is not found again, so `FindingStore` resolves it in the same pass.
///
/// Instants are read with `extract(epoch ...)`, which is right for `timestamptz` and for the app's UTC
/// `timestamp` columns alike.
struct ProactiveReader: Sendable {
    package let options: ProactiveOptions

    package init(options: ProactiveOptions = ProactiveOptions()) { self.options = options }

    package func read(_ users: [UUID], now: Date, on db: PostgresConnection) async throws -> ProactiveRows {
        var rows = ProactiveRows()
        guard !users.isEmpty else { return rows }
        rows.zones = try await UserZones.load(users, policy: options.zones, on: db).zones
        let window = Window(users: Array(rows.zones.keys), now: now)
        rows.events = try await events(window, on: db)
        rows.rsvps = try await rsvps(window, on: db)
        rows.deadlines = try await deadlines(window, on: db)
        rows.reminders = try await reminders(window, on: db)
        rows.priorities = try await priorities(window, on: db)
        return rows
    }

    /// The users that exist and the run's clock: what every query of one read is bounded by.
    struct Window {
        let users: [UUID]
        let now: Date
        /// Today in UTC; each query reads from two days before it, so every zone's local today is covered.
        let utcToday: LocalDate

        init(users: [UUID], now: Date) {
            self.users = users
            self.now = now
            self.utcToday = LocalDate(now, in: UserZones.utc)
        }

        var from: LocalDate { utcToday.adding(days: -2) }
        /// The last day a query covers for a window of `days` ahead, two days wider for the zones.
        func through(_ days: Int) -> LocalDate { utcToday.adding(days: days + 2) }
    }

    /// Events of the user's conversations, timed by `date`, `time` and `end_time` (the app's columns) in the user's
    /// zone, as `check_conflicts` times them (the service's `starts_at` would be stale after the app moves an event),
    /// minus those the user declined (an RSVP answered "no" for that day).
    func events(_ window: Window, on db: PostgresConnection) async throws -> [ProactiveRows.Event] {
        try await db.query(
            """
            SELECT user_id, id, title, date, time, end_time, location, item FROM (
              SELECT cp.user_id, e.id, e.title, e.date, e.time, e.end_time, e.location, \(Scope.eventItem("e")) AS item,
                     row_number() OVER (PARTITION BY cp.user_id ORDER BY e.date, e.time NULLS FIRST, e.id) AS n
              FROM conversation_participants cp
              JOIN calendar_events e ON e.conversation_id = cp.conversation_id
              WHERE cp.user_id = ANY($1::uuid[]) AND e.date BETWEEN $2::date AND $3::date AND e.closed_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM rsvp_tracking r
                                WHERE r.user_id = cp.user_id AND r.conversation_id = e.conversation_id
                                  AND r.event_date = e.date AND r.response = 'no' AND r.closed_at IS NULL)
            ) ranked WHERE n <= $4
            """, [window.users, window.from, window.through(options.horizonDays), options.maxEventsPerUser]).map { row in
            ProactiveRows.Event(
                userID: try row.decode("user_id"), id: try row.decode("id"), title: try row.decode("title"),
                date: try row.decode("date"), time: try row.decode("time"), endTime: try row.decode("end_time"),
                location: try row.decode("location"), item: try row.decode("item"))
        }
    }

    /// RSVPs not answered, of conversations the user is still in, whose event has not passed.
    func rsvps(_ window: Window, on db: PostgresConnection) async throws -> [ProactiveRows.RSVP] {
        try await db.query(
            """
            SELECT r.user_id, r.id, r.event_name, r.deadline, r.event_date,
                   COALESCE(NULLIF(u.display_name, ''), u.username) AS requested_by,
                   COALESCE(c.name, 'a chat') AS conversation
            FROM rsvp_tracking r
            JOIN conversations c ON c.id = r.conversation_id
            LEFT JOIN users u ON u.id = r.requested_by
            WHERE r.user_id = ANY($1::uuid[]) AND COALESCE(r.status, 'pending') = 'pending' AND r.response IS NULL
              AND r.closed_at IS NULL AND r.event_date >= $2::date AND (r.event_date <= $3::date OR r.deadline <= $3::date)
              AND EXISTS (SELECT 1 FROM conversation_participants cp WHERE cp.conversation_id = r.conversation_id AND cp.user_id = r.user_id)
            """, [window.users, window.from, window.through(options.rsvpDays)]).map { row in
            ProactiveRows.RSVP(
                userID: try row.decode("user_id"), id: try row.decode("id"), eventName: try row.decode("event_name"),
                deadline: try row.decode("deadline"), eventDate: try row.decode("event_date"),
                requestedBy: try row.decode("requested_by"), conversation: try row.decode("conversation"))
        }
    }

    /// Deadlines not done, closed or of a conversation she left, in the window.
    func deadlines(_ window: Window, on db: PostgresConnection) async throws -> [ProactiveRows.Deadline] {
        try await db.query(
            """
            SELECT d.user_id, d.id, d.task, d.deadline, d.deadline_time, extract(epoch FROM d.due_at)::float8 AS due_epoch,
                   COALESCE(d.status, 'pending') AS status
            FROM deadlines d
            WHERE d.user_id = ANY($1::uuid[]) AND COALESCE(d.status, 'pending') NOT IN ('completed', 'done', 'dismissed', 'cancelled')
              AND d.closed_at IS NULL AND d.deadline BETWEEN $2::date AND $3::date
              AND (d.conversation_id IS NULL
                   OR EXISTS (SELECT 1 FROM conversation_participants cp WHERE cp.conversation_id = d.conversation_id AND cp.user_id = d.user_id))
            """, [window.users, window.from, window.through(options.deadlineDays)]).map { row in
            ProactiveRows.Deadline(
                userID: try row.decode("user_id"), id: try row.decode("id"), task: try row.decode("task"),
                deadline: try row.decode("deadline"), time: try row.decode("deadline_time"),
                dueAt: try row.decode("due_epoch", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
                status: try row.decode("status"))
        }
    }

    /// Urgent and high priority messages sent in the last `priorityLookbackDays` days (UTC, a day wider) to the
    /// user's conversations by someone else, not dismissed, on which no deadline or RSVP of the user rests: a pending
    /// one raises the message as its own finding, a done or answered one means the request is met. Each comes with
    /// the earliest day of an event extracted from it (the day it concerns) and its text, cut.
    func priorities(_ window: Window, on db: PostgresConnection) async throws -> [ProactiveRows.Priority] {
        try await db.query(
            """
            SELECT cp.user_id, p.message_id, p.priority, p.reason, extract(epoch FROM m.created_at)::float8 AS sent_epoch,
                   left(m.content, 400) AS text, COALESCE(NULLIF(u.display_name, ''), u.username) AS sender,
                   COALESCE(c.name, 'a chat') AS conversation,
                   (SELECT min(e.date) FROM calendar_events e
                    WHERE e.conversation_id = m.conversation_id AND e.closed_at IS NULL
                      AND (e.message_id = p.message_id OR p.message_id = ANY(e.source_message_ids))) AS event_day
            FROM priority_messages p
            JOIN messages m ON m.id = p.message_id
            JOIN conversations c ON c.id = m.conversation_id
            JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id
            LEFT JOIN users u ON u.id = m.sender_id
            WHERE cp.user_id = ANY($1::uuid[]) AND p.priority IN ('urgent', 'high') AND p.dismissed IS NOT TRUE AND p.closed_at IS NULL
              AND m.sender_id IS DISTINCT FROM cp.user_id AND m.created_at >= $2::date
              AND NOT EXISTS (SELECT 1 FROM deadlines d WHERE d.user_id = cp.user_id AND d.message_id = p.message_id)
              AND NOT EXISTS (SELECT 1 FROM rsvp_tracking r WHERE r.user_id = cp.user_id AND r.message_id = p.message_id)
            """, [window.users, window.utcToday.adding(days: -(options.priorityLookbackDays + 1))]).map { row in
            ProactiveRows.Priority(
                userID: try row.decode("user_id"), messageID: try row.decode("message_id"), priority: try row.decode("priority"),
                reason: try row.decode("reason"), sentAt: Date(timeIntervalSince1970: try row.decode("sent_epoch")),
                eventDay: try row.decode("event_day"), sender: try row.decode("sender"), conversation: try row.decode("conversation"),
                text: try row.decode("text"))
        }
    }

    /// Pending reminders coming due within `reminderHours` of now, not of a closed deadline or a conversation she left.
    func reminders(_ window: Window, on db: PostgresConnection) async throws -> [ProactiveRows.Reminder] {
        let now = window.now.timeIntervalSince1970
        return try await db.query(
            """
            SELECT r.user_id, r.id, r.title, extract(epoch FROM r.reminder_time)::float8 AS at_epoch
            FROM reminders r
            WHERE r.user_id = ANY($1::uuid[]) AND COALESCE(r.status, 'pending') = 'pending'
              AND \(Scope.reminderOfOpenItem("r", userParameter: "r.user_id"))
              AND extract(epoch FROM r.reminder_time) > $2::float8 AND extract(epoch FROM r.reminder_time) <= $3::float8
            """, [window.users, now, now + Double(options.reminderHours) * 3600]).map { row in
            ProactiveRows.Reminder(
                userID: try row.decode("user_id"), id: try row.decode("id"), title: try row.decode("title"),
                at: Date(timeIntervalSince1970: try row.decode("at_epoch")))
        }
    }
}
