import Core
import Foundation
import Postgres
import Tools

/// Which users the proactive pass looks at: one `proactive_users` row per user, locked in batches by the transaction
/// that computes and writes their findings (`FOR UPDATE SKIP LOCKED`, then a waiting round for the users another pass
/// held), sharded by the hash of the user id (as the scan shards conversations), so several pods share the users and
/// a pass killed mid-batch leaves nothing held. Assistant runs are claimed apart, with a lease (`claimNarrations`).
struct ProactiveQueue: Sendable {
    let pool: PostgresPool
    let options: ProactivePass.Options

    /// Users with something coming up in their own next days, whatever changed: an unanswered RSVP whose reply-by
    /// date or event is near, a deadline not done, a reminder coming due, a recent urgent or high priority message in
    /// one of their conversations, or a finding still open (so it can be resolved). Closed rows (`closed_at`) are
    /// nothing coming up. One statement for all users; windows are a day wider than any zone's.
    func upcomingUsers(now: Date) async throws -> [UUID] {
        let p = options.proactive
        let today = LocalDateUTC.today(now)
        let rows = try await pool.query(
            """
            SELECT user_id FROM rsvp_tracking
              WHERE COALESCE(status, 'pending') = 'pending' AND response IS NULL AND closed_at IS NULL AND event_date >= $1::date
                AND (event_date <= $2::date OR deadline <= $2::date)
            UNION SELECT user_id FROM deadlines
              WHERE COALESCE(status, 'pending') NOT IN ('completed', 'done', 'dismissed', 'cancelled') AND closed_at IS NULL
                AND deadline BETWEEN $1::date AND $3::date
            UNION SELECT user_id FROM reminders
              WHERE COALESCE(status, 'pending') = 'pending' AND extract(epoch FROM reminder_time) > $4::float8
                AND extract(epoch FROM reminder_time) <= $5::float8
            UNION SELECT cp.user_id FROM priority_messages pm
              JOIN messages m ON m.id = pm.message_id
              JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id
              WHERE pm.priority IN ('urgent', 'high') AND pm.dismissed IS NOT TRUE AND pm.closed_at IS NULL AND m.created_at >= $6::date
            UNION SELECT user_id FROM assistant_findings WHERE status = 'open'
            """,
            [today.adding(days: -1), today.adding(days: p.rsvpDays + 1), today.adding(days: p.deadlineDays + 1),
             now.timeIntervalSince1970, now.timeIntervalSince1970 + Double(p.reminderHours) * 3600,
             today.adding(days: -(p.priorityLookbackDays + 1))])
        return try rows.compactMap { try $0.decode("user_id", as: UUID?.self) }
    }

    /// Users whose rows changed since the pass last looked at them (or that it never looked at): events and priority
    /// messages of their conversations, their RSVPs, deadlines and reminders.
    func changedUsers() async throws -> [UUID] {
        try await pool.query(
            """
            SELECT u.id FROM users u LEFT JOIN proactive_users p ON p.user_id = u.id
            WHERE p.last_pass_at IS NULL
               OR EXISTS (SELECT 1 FROM conversation_participants cp JOIN calendar_events e ON e.conversation_id = cp.conversation_id
                          WHERE cp.user_id = u.id AND e.updated_at > p.last_pass_at)
               OR EXISTS (SELECT 1 FROM rsvp_tracking r WHERE r.user_id = u.id AND r.updated_at > p.last_pass_at)
               OR EXISTS (SELECT 1 FROM deadlines d WHERE d.user_id = u.id AND d.updated_at > p.last_pass_at)
               OR EXISTS (SELECT 1 FROM reminders r WHERE r.user_id = u.id AND r.updated_at > p.last_pass_at)
               OR EXISTS (SELECT 1 FROM conversation_participants cp JOIN priority_messages pm ON pm.conversation_id = cp.conversation_id
                          WHERE cp.user_id = u.id AND pm.updated_at > p.last_pass_at)
            """).map { try $0.decode("id") }
    }

    /// Gives every candidate a queue row (`nil`: every user).
    func prepare(_ candidates: [UUID]?) async throws {
        if let candidates {
            try await pool.query(
                "INSERT INTO proactive_users (user_id) SELECT id FROM users WHERE id = ANY($1::uuid[]) ON CONFLICT DO NOTHING", [candidates])
        } else {
            try await pool.query("INSERT INTO proactive_users (user_id) SELECT id FROM users ON CONFLICT DO NOTHING")
        }
    }

    /// The pass's start on the database clock: a user passed after it is not taken again by this pass.
    func databaseNow() async throws -> Date {
        try await pool.query("SELECT clock_timestamp() AS t")[0].decode("t")
    }

    /// Who a pass looks at: `own` users (the ones whose rows this process just changed) whatever their shard, the
    /// other candidates only in this pass's shard (nil: every user of the shard).
    struct Scope: Sendable {
        var own: [UUID] = []
        var sharded: [UUID]?
    }

    /// Locks up to `limit` users of `scope` for the transaction `db` (which computes and writes their findings):
    /// users no pass has looked at since `since` (this pass's start, taken after its extraction committed), except
    /// users this pass already tried. `wait` false skips users another pass holds (the pass shares the work); true
    /// waits for them (bounded by `lock_timeout`) and then takes only those whose other pass began before `since`,
    /// that is, before this process's rows were all written. Because `finish` stamps `last_pass_at` with the
    /// computing transaction's start, a user is skipped only when her findings were computed from data that
    /// includes everything committed before `since`: shards and concurrent scans together leave no user's findings
    /// computed from rows another shard had not yet written.
    static func lock(_ scope: Scope, since: Date, skipping attempted: [UUID], limit: Int, wait: Bool, shardIndex: Int,
                     shardCount: Int, on db: PostgresConnection) async throws -> [UUID] {
        try await db.query(
            """
            SELECT user_id FROM proactive_users
            WHERE (user_id = ANY($1::uuid[])
                   OR (($2::uuid[] IS NULL OR user_id = ANY($2::uuid[])) AND mod(abs(hashtext(user_id::text)), $3) = $4))
              AND (last_pass_at IS NULL OR last_pass_at < $5)
              AND user_id <> ALL($6::uuid[])
            ORDER BY user_id
            LIMIT $7
            FOR UPDATE \(wait ? "" : "SKIP LOCKED")
            """,
            [scope.own, scope.sharded, shardCount, shardIndex, since, attempted, limit]).map { try $0.decode("user_id") }
    }

    /// Marks users done, inside the transaction that wrote their findings: `last_pass_at` is that transaction's start
    /// (`now()`), before any of its reads, so it never claims more than the findings saw.
    static func finish(_ users: [UUID], runID: UUID, on db: PostgresConnection) async throws {
        try await db.query(
            """
            UPDATE proactive_users SET last_pass_at = now(), last_run_id = $2, lease_owner = NULL,
                lease_expires_at = NULL, failures = 0, last_error = NULL
            WHERE user_id = ANY($1::uuid[])
            """, [users, runID])
    }

    /// Claims the assistant runs of `users` for the pass `runID`: only users whose open findings (kind, subject,
    /// fingerprint) differ from the ones their last successful run started from, and that no other pass is running
    /// the model for (a claim of a run that has ended, or whose heartbeat lapsed after a kill, is free). Row locks make the claim atomic: a concurrent claim waits, then sees the live claim and skips
    /// the user. Returns each claimed user's digest.
    func claimNarrations(_ users: [UUID], runID: UUID) async throws -> [UUID: String] {
        guard !users.isEmpty else { return [:] }
        var claimed: [UUID: String] = [:]
        for row in try await pool.query(
            """
            WITH digest AS (
              SELECT u.user_id, md5(string_agg(f.kind || '|' || f.subject_key || '|' || f.fingerprint, E'\\n'
                                               ORDER BY f.kind, f.subject_key)) AS d
              FROM unnest($1::uuid[]) AS u(user_id)
              JOIN assistant_findings f ON f.user_id = u.user_id AND f.status = 'open' AND NOT f.dismissed
              GROUP BY u.user_id)
            UPDATE proactive_users p SET narrating_owner = $2, narrating_until = now() + make_interval(secs => $3),
                narrating_digest = digest.d
            FROM digest
            WHERE p.user_id = digest.user_id AND p.narrated_digest IS DISTINCT FROM digest.d
              AND (p.narrating_until IS NULL OR p.narrating_until < now()
                   OR EXISTS (SELECT 1 FROM job_runs r WHERE r.id::text = p.narrating_owner
                              AND (r.status <> 'running' OR r.alive_until < now())))
            RETURNING p.user_id, digest.d
            """, [users, runID.postgresValue, options.lease.wholeSeconds]) {
            claimed[try row.decode("user_id")] = try row.decode("d")
        }
        return claimed
    }

    /// Ends the pass's claims on assistant runs: `succeeded` users keep the digest their run started from (the
    /// next pass skips them while it holds), the others are only released (the next pass tries again).
    func finishNarrations(succeeded: [UUID], released: [UUID], runID: UUID) async throws {
        guard !(succeeded.isEmpty && released.isEmpty) else { return }
        try await pool.query(
            """
            UPDATE proactive_users SET
                narrated_digest = CASE WHEN user_id = ANY($1::uuid[]) THEN narrating_digest ELSE narrated_digest END,
                narrated_run_id = CASE WHEN user_id = ANY($1::uuid[]) THEN $3::uuid ELSE narrated_run_id END,
                narrating_owner = NULL, narrating_until = NULL, narrating_digest = NULL
            WHERE user_id = ANY($1::uuid[] || $2::uuid[]) AND narrating_owner = $4
            """, [succeeded, released, runID, runID.postgresValue])
    }

    /// Records a failed batch and releases it, so the next pass tries again.
    func fail(_ users: [UUID], error: String) async throws {
        try await pool.query(
            """
            UPDATE proactive_users SET failures = failures + 1, last_error = $2
            WHERE user_id = ANY($1::uuid[])
            """, [users, String(error.prefix(2000))])
    }
}

/// Today's date in UTC, the center of the windows that are a day wider than any zone's.
enum LocalDateUTC {
    static func today(_ now: Date) -> LocalDate { LocalDate(now, in: UserZones.utc) }
}
