import Foundation
import Postgres

/// Messages edited or soft-deleted since a conversation was last read (docs/over-nights.md phase 2 point 3): an edited
/// message is read again as new, with a few messages before it, so its items follow the new text; a deleted one's id
/// goes to `ConversationInput.deletedMessageIDs`, so items resting only on it close.
extension ConversationReader {
    /// What changed behind the watermark since the last read.
    package struct Edits: Sendable, Hashable {
        /// Edited messages (at most `maxEditedMessages`, the latest edits) and the context before each, oldest first.
        package var messages: [InputMessage] = []
        /// The ids of the edited messages among `messages`.
        package var edited: Set<String> = []
        /// Edits left unread by the cap (the oldest ones): the next read starts after this one, so they are not read again.
        package var editsOverCap = 0
        /// Messages read before and soft-deleted since (at most `maxDeletedMessages`).
        package var deleted: Set<String> = []
    }

    /// When the conversation was last read: `scan_watermarks.read_at`, else the scan's commit time for a conversation
    /// not read since migration 166. Nil when it was never scanned.
    func lastRead(_ conversationID: UUID, on db: PostgresConnection) async throws -> Date? {
        try await db.query("SELECT COALESCE(read_at, scanned_at) AS t FROM scan_watermarks WHERE conversation_id = $1",
                           [conversationID]).first?.decode("t", as: Date?.self)
    }

    /// Messages at or before `watermark` edited or deleted after `since` and not after `readAt` (a time ahead of the
    /// database's clock is read once it has passed, not every night until then).
    func edits(_ conversationID: UUID, watermark: Watermark, since: Date, readAt: Date, on db: PostgresConnection) async throws -> Edits {
        var edits = Edits()
        let edited = try await db.query(
            """
            SELECT id::text AS id, sender_id::text AS sender, created_at, content, count(*) OVER () AS n FROM messages m
            WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) <= ($2, $3::uuid)
              AND messageai_utc(updated_at) > $4 AND messageai_utc(updated_at) <= $5
            ORDER BY updated_at DESC, id LIMIT $6
            """, [conversationID, watermark.sentAt, watermark.messageID, since, readAt, maxEditedMessages])
        if let total = try edited.first?.decode("n", as: Int.self) { edits.editsOverCap = max(0, total - maxEditedMessages) }
        let changed = try edited.map(message)
        edits.edited = Set(changed.map(\.id))
        if !changed.isEmpty, editContextMessages > 0 {
            let context = try await db.query(
                """
                SELECT DISTINCT c.id, c.sender, c.created_at, c.content FROM messages e
                CROSS JOIN LATERAL (
                  SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages
                  WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) < (e.created_at, e.id)
                  ORDER BY created_at DESC, id DESC LIMIT $3) AS c
                WHERE e.id = ANY($2::uuid[])
                """, [conversationID, changed.compactMap { UUID(uuidString: $0.id) }, editContextMessages])
            edits.messages = try context.map(message)
        }
        var seen = Set(edits.messages.map(\.id))
        edits.messages += changed.filter { seen.insert($0.id).inserted }
        edits.messages.sort { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }
        let deleted = try await db.query(
            """
            SELECT id::text AS id FROM messages
            WHERE conversation_id = $1 AND deleted_at IS NOT NULL AND (created_at, id) <= ($2, $3::uuid)
              AND messageai_utc(deleted_at) > $4 AND messageai_utc(deleted_at) <= $5
            ORDER BY deleted_at DESC, id LIMIT $6
            """, [conversationID, watermark.sentAt, watermark.messageID, since, readAt, maxDeletedMessages])
        edits.deleted = Set(try deleted.map { try $0.decode("id", as: String.self) })
        return edits
    }
}
