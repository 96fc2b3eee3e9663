package import Foundation
package import Postgres

/// A member who left a conversation keeps nothing of it (docs/over-nights.md phase 2 point 4). At each scan of the
/// conversation, a user with open per-user rows of it who is no longer in `conversation_participants` has them
/// closed: her deadlines and RSVP rows get `closed_at` and `closed_reason = 'left'` (their `status`, what she did in
/// the app, stays as it is; no row is removed), her pending reminders of them and of the conversation are cancelled,
/// and her open findings citing its rows are resolved. Migration 165 already keeps her from reading them.
package struct LeftMembers: Sendable {
    /// What one conversation's sweep closed.
    package struct Closed: Sendable, Hashable {
        package var users = 0
        package var deadlines = 0
        package var rsvps = 0
        package var reminders = 0
        package var findings = 0

        package init(users: Int = 0, deadlines: Int = 0, rsvps: Int = 0, reminders: Int = 0, findings: Int = 0) {
            (self.users, self.deadlines, self.rsvps, self.reminders, self.findings) = (users, deadlines, rsvps, reminders, findings)
        }
    }

    package init() {}

    /// Closes the rows of `conversationID` of users no longer in it, at `now`. Set-based: one statement, bounded by
    /// the conversation's own rows (indexed by conversation) and those users' reminders and findings (indexed by user).
    @discardableResult
    package func close(in conversationID: UUID, now: Date, on db: PostgresConnection) async throws -> Closed {
        let row = try await db.query(
            """
            WITH gone AS (
              SELECT u.user_id FROM (
                SELECT user_id FROM deadlines WHERE conversation_id = $1 AND closed_at IS NULL
                UNION SELECT user_id FROM rsvp_tracking WHERE conversation_id = $1 AND closed_at IS NULL) AS u
              WHERE u.user_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = $1 AND p.user_id = u.user_id)),
            deadlines_closed AS (
              UPDATE deadlines d SET closed_at = $2, closed_reason = 'left', updated_at = now()
              WHERE d.conversation_id = $1 AND d.closed_at IS NULL AND d.user_id IN (SELECT user_id FROM gone) RETURNING d.id),
            rsvps_closed AS (
              UPDATE rsvp_tracking r SET closed_at = $2, closed_reason = 'left', updated_at = now()
              WHERE r.conversation_id = $1 AND r.closed_at IS NULL AND r.user_id IN (SELECT user_id FROM gone) RETURNING r.id),
            reminders_cancelled AS (
              UPDATE reminders r SET status = 'cancelled', updated_at = now()
              WHERE r.user_id IN (SELECT user_id FROM gone) AND COALESCE(r.status, 'pending') = 'pending'
                AND (r.conversation_id = $1 OR r.deadline_id IN (SELECT id FROM deadlines WHERE conversation_id = $1))
              RETURNING r.id),
            findings_resolved AS (
              UPDATE assistant_findings a SET status = 'resolved', resolved_at = $2, updated_at = now()
              WHERE a.user_id IN (SELECT user_id FROM gone) AND a.status = 'open'
                AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(a.cites) = 'array' THEN a.cites ELSE '[]'::jsonb END) AS c(cite)
                            WHERE messageai_cited_conversation(c.cite->>'table', c.cite->>'id') = $1)
              RETURNING a.id)
            SELECT (SELECT count(*) FROM gone) AS users, (SELECT count(*) FROM deadlines_closed) AS deadlines,
                   (SELECT count(*) FROM rsvps_closed) AS rsvps, (SELECT count(*) FROM reminders_cancelled) AS reminders,
                   (SELECT count(*) FROM findings_resolved) AS findings
            """, [conversationID, now])[0]
        return Closed(users: try row.decode("users"), deadlines: try row.decode("deadlines"), rsvps: try row.decode("rsvps"),
                      reminders: try row.decode("reminders"), findings: try row.decode("findings"))
    }
}
