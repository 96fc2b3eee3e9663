import Core
import Foundation
import Postgres

/// How a closed item reads in the app's tables (docs/over-nights.md, phase 2 point 2): a service row nobody acted on
/// is deleted for events, decisions and priority messages; every other row stays with `closed_at` and
/// `closed_reason` (cancelled, met, lapsed, ended, superseded, not_backed). A cancelled deadline's pending rows get
/// `status = 'cancelled'`, and a closed deadline's pending reminders are cancelled with it. `superseded` (an `extract`
/// over the whole chat no longer has the item) removes rows nobody acted on in every table, as a replace always did.
enum RowClosing {
    /// A priority message met by every participant but its sender: its one row closes.
    static func metByEveryone(_ item: TrackedItem, input: ConversationInput) -> Bool {
        guard case .priority(let flagged) = item.body, item.status == .open, !item.metFor.isEmpty else { return false }
        var readers = Set(input.participants.map(\.id))
        if let sender = input.message(flagged.messageID)?.senderID { readers.remove(sender) }
        return !readers.isEmpty && readers.isSubset(of: item.metFor)
    }

    static func close(_ item: TrackedItem, reason: String, removesRow: Bool, rows: inout RowWriter) async throws {
        let key = TrackedItemStore.rowKey(item.body, ref: item.ref, conversation: rows.conversation)
        let feature = item.body.feature
        let (removeSQL, markSQL) = statements(item.body, reason: reason)
        if removesRow, let removeSQL {
            let removed = try await rows.db.query(removeSQL, [key]).affectedRows
            if removed > 0 { rows.summary.removed[feature.rawValue, default: 0] += removed }
        }
        try await rows.db.query(markSQL, [key, reason, rows.now])
        if case .deadline = item.body {
            try await rows.db.query("""
                UPDATE reminders SET status = 'cancelled', updated_at = now()
                WHERE status = 'pending' AND deadline_id IN (SELECT id FROM deadlines WHERE item_key = $1 AND closed_at IS NOT NULL)
                """, [key])
        }
    }

    /// The removal of rows nobody acted on (nil: rows stay), and the marking of the rest: $1 the item's key
    /// (`item_key` for per-user tables), $2 the reason, $3 now.
    private static func statements(_ body: ItemBody, reason: String) -> (remove: String?, mark: String) {
        let superseded = reason == "superseded"
        switch body {
        case .event:
            return ("DELETE FROM calendar_events WHERE idempotency_key = $1 AND confirmed IS NOT TRUE",
                    "UPDATE calendar_events SET closed_at = $3, closed_reason = $2, updated_at = now() WHERE idempotency_key = $1 AND closed_at IS NULL")
        case .decision:
            return ("DELETE FROM decisions WHERE idempotency_key = $1",
                    "UPDATE decisions SET closed_at = $3, closed_reason = $2, updated_at = now() WHERE idempotency_key = $1 AND closed_at IS NULL")
        case .priority:
            return ("DELETE FROM priority_messages WHERE idempotency_key = $1 AND dismissed IS NOT TRUE",
                    "UPDATE priority_messages SET closed_at = $3, closed_reason = $2, updated_at = now() WHERE idempotency_key = $1 AND closed_at IS NULL")
        case .rsvp:
            return (superseded ? "DELETE FROM rsvp_tracking WHERE item_key = $1 AND NOT (\(RSVPs.answeredInApp))" : nil,
                    "UPDATE rsvp_tracking SET closed_at = $3, closed_reason = $2, updated_at = now() WHERE item_key = $1 AND closed_at IS NULL")
        case .deadline:
            return (superseded ? "DELETE FROM deadlines WHERE item_key = $1 AND status = 'pending'" : nil,
                    """
                    UPDATE deadlines SET closed_at = $3, closed_reason = $2, updated_at = now(),
                        status = CASE WHEN $2 = 'cancelled' THEN 'cancelled' ELSE status END
                    WHERE item_key = $1 AND closed_at IS NULL AND status = 'pending'
                    """)
        }
    }
}
