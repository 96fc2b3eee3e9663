import Chrono
import Foundation
import Postgres

/// Loads a conversation from the app's tables as extractor input.
public struct ConversationReader: Sendable {
    /// Where a scan stopped reading: messages after (sentAt, id) are new.
    public struct Watermark: Sendable, Hashable, Codable {
        public let sentAt: Date
        public let messageID: UUID

        public init(sentAt: Date, messageID: UUID) {
            self.sentAt = sentAt
            self.messageID = messageID
        }
    }

    /// The read cap when none is given.
    public static let defaultMaxMessages = 2000
    /// At most this many messages are read for one extraction (the newest); older ones are left out.
    public var maxMessages: Int
    /// Messages before the watermark shown as context in a scan.
    public var contextMessages: Int
    /// Longer texts are cut to this many characters (a pasted document, a 1 MB message): whole, such a message makes
    /// every request of its conversation too large for the model, failing that conversation on every run.
    public var maxMessageCharacters: Int
    /// The zone of participants without a `user_settings` row.
    public var zones: UserTimeZonePolicy

    public init(maxMessages: Int = Self.defaultMaxMessages, contextMessages: Int = 20, maxMessageCharacters: Int = 8000,
                zones: UserTimeZonePolicy = .utc) {
        self.zones = zones
        self.maxMessages = maxMessages
        self.contextMessages = contextMessages
        self.maxMessageCharacters = max(1, maxMessageCharacters)
    }

    /// The conversation with its participants and messages; nil when it does not exist.
    /// With a watermark, only messages after it plus `contextMessages` earlier ones are read.
    /// `messages.created_at` may be TIMESTAMP (the PRD: UTC wall clock) or TIMESTAMPTZ: the watermark is bound
    /// untyped as a UTC instant ("...Z"), which either type reads as the same instant whatever the session's TimeZone.
    public func load(_ conversationID: UUID, since watermark: Watermark? = nil, now: Date, on db: PostgresConnection) async throws -> ConversationInput? {
        let found = try await db.query("SELECT name, is_group FROM conversations WHERE id = $1", [conversationID])
        guard let head = found.first else { return nil }
        let participants = try await db.query(
            """
            SELECT u.id::text AS id, COALESCE(NULLIF(u.display_name, ''), u.username) AS name, s.time_zone
            FROM users u
            LEFT JOIN user_settings s ON s.user_id = u.id
            WHERE u.id IN (SELECT user_id FROM conversation_participants WHERE conversation_id = $1
                           UNION SELECT DISTINCT sender_id FROM messages WHERE conversation_id = $1 AND sender_id IS NOT NULL)
            ORDER BY u.id
            """, [conversationID])
        var people: [Participant] = []
        var zones: [String: Int] = [:]
        var zoneNamed: [String: TimeZone] = [:]
        for row in participants {
            let id: String = try row.decode("id")
            people.append(Participant(id: id, name: try row.decode("name")))
            // A setting that is not a valid zone counts as none (the default zone), with a warning.
            if let setting = try row.decode("time_zone", as: String?.self) {
                let (zone, valid) = self.zones.zone(user: id, setting: setting)
                if valid {
                    zones[setting, default: 0] += 1
                    zoneNamed[setting] = zone
                }
            }
        }
        let messages: [InputMessage]
        var firstNew = 0
        if let watermark {
            let newRows = try await db.query(
                """
                SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages
                WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) > ($2, $3::uuid)
                ORDER BY created_at, id LIMIT $4
                """, [conversationID, watermark.sentAt, watermark.messageID, maxMessages])
            let contextRows = try await db.query(
                """
                SELECT * FROM (
                  SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages
                  WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) <= ($2, $3::uuid)
                  ORDER BY created_at DESC, id DESC LIMIT $4) AS earlier
                ORDER BY created_at, id
                """, [conversationID, watermark.sentAt, watermark.messageID, contextMessages])
            let context = try contextRows.map(message)
            messages = context + (try newRows.map(message))
            firstNew = context.count
        } else {
            let rows = try await db.query(
                """
                SELECT * FROM (
                  SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages
                  WHERE conversation_id = $1 AND deleted_at IS NULL
                  ORDER BY created_at DESC, id DESC LIMIT $2) AS recent
                ORDER BY created_at, id
                """, [conversationID, maxMessages])
            messages = try rows.map(message)
        }
        // Relative dates are read in the zone most participants set (the default zone when none did).
        let zoneName = zones.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        return ConversationInput(
            conversationID: conversationID.postgresValue,
            name: try head.decode("name", as: String?.self) ?? "Conversation",
            isGroup: try head.decode("is_group"),
            participants: people, messages: messages, firstNewIndex: firstNew,
            timeZone: zoneName.flatMap { zoneNamed[$0] } ?? self.zones.fallback, now: now)
    }

    /// Messages of the conversation older than `message` (the oldest one read): on a first read of more than
    /// `maxMessages`, the ones left out, which the watermark then moves past.
    public func count(olderThan message: InputMessage, in conversationID: UUID, on db: PostgresConnection) async throws -> Int {
        guard let id = UUID(uuidString: message.id) else { return 0 }
        return try await db.query(
            """
            SELECT count(*) AS n FROM messages
            WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) < ($2, $3::uuid)
            """, [conversationID, message.sentAt, id])[0].decode("n")
    }

    private func message(_ row: PostgresRow) throws -> InputMessage {
        let text: String = try row.decode("content")
        return InputMessage(id: try row.decode("id"), senderID: try row.decode("sender", as: String?.self) ?? "unknown",
                            sentAt: try row.decode("created_at"),
                            text: text.count > maxMessageCharacters ? String(text.prefix(maxMessageCharacters - 1)) + "…" : text)
    }
}
