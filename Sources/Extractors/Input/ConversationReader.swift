package import Core
package import Foundation
package import Postgres

/// Loads a conversation from the app's tables as extractor input.
package struct ConversationReader: Sendable {
    /// Where a scan stopped reading: messages after (sentAt, id) are new.
    package struct Watermark: Sendable, Hashable, Codable {
        package let sentAt: Date
        package let messageID: UUID

        package init(sentAt: Date, messageID: UUID) {
            self.sentAt = sentAt
            self.messageID = messageID
        }
    }

    /// The read cap when none is given.
    package static let defaultMaxMessages = 2000
    /// Messages before the watermark a night's request shows with the new ones (`scan --context-messages`), the same
    /// in `scan`, batch and `eval` over nights. Ten since the open items of earlier nights travel with the request
    /// (issue 46): what an exchange began with no longer has to be in view, and 20 made the request too large for
    /// the token target (benchmarks/RESULTS.md).
    package static let defaultContextMessages = 10
    /// At most this many messages are read for one extraction (the newest); older ones are left out.
    package var maxMessages: Int
    /// Messages before the watermark shown as context in a scan.
    package var contextMessages: Int
    /// Longer texts are cut to this many characters (a pasted document, a 1 MB message): whole, such a message makes
    /// every request of its conversation too large for the model, failing that conversation on every run.
    var maxMessageCharacters: Int
    /// The zone of participants without a `user_settings` row.
    package var zones: UserTimeZonePolicy
    /// At most this many messages edited since the last read are read again in one night (the latest edits): an
    /// edit storm must not make one request as large as a first read.
    package var maxEditedMessages = 50
    /// Messages before each edited one shown with it, so the edit is read in its exchange.
    package var editContextMessages = 3
    /// At most this many messages deleted since the last read are named in one night (the latest deletions).
    var maxDeletedMessages = 500

    package init(maxMessages: Int = Self.defaultMaxMessages, contextMessages: Int = Self.defaultContextMessages, maxMessageCharacters: Int = 8000,
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
    package func load(_ conversationID: UUID, since watermark: Watermark? = nil, now: Date, on db: PostgresConnection) async throws -> ConversationInput? {
        try await read(conversationID, since: watermark, now: now, on: db)?.input
    }

    /// What `read` returns: the conversation, and the messages whose `created_at` was after the read.
    package struct Read: Sendable {
        package var input: ConversationInput
        /// Messages dated after the moment they were read (`created_at` in the future: a wrong device clock, or a
        /// member writing the column): their time is clamped to `readAt`, so none can carry a watermark past now.
        /// A scan records them (`scan_future_messages`) so that they are read once.
        package let futureDated: [UUID]
        /// The database's clock when the messages were read.
        package let readAt: Date
        /// The newest new message (its time clamped to `readAt`): where the watermark moves. Nil when none was new.
        package var newest: InputMessage?
        /// Newest first only: more new messages than the cap were found, the newest window was read, and these are
        /// the ones left between the watermark and that window.
        package var overflow: Gap?
        /// How far the backlog gap given to `read` was read.
        package var backlogRead: BacklogRead?
        /// Messages behind the watermark edited or deleted since the last read (read with a watermark only).
        package var edits = Edits()
    }

    /// Unread messages strictly between two positions: new messages a newest-first read left for later nights.
    package struct Gap: Sendable, Hashable {
        package let after: Watermark
        package let before: Watermark

        package init(after: Watermark, before: Watermark) {
            self.after = after
            self.before = before
        }
    }

    /// Messages of a backlog gap read oldest first: through the last one read; `done` when none is left.
    package struct BacklogRead: Sendable, Hashable {
        package let gap: Gap
        package let through: Watermark?
        package let done: Bool
    }

    /// `load`, with the future-dated messages named. With a watermark, messages a scan recorded as future-dated
    /// (`scan_future_messages`) are not new again: they were read when they arrived.
    /// `newestFirst` (the scan): more new messages than the cap leave a gap (`Read.overflow`) instead of the newest
    /// waiting; `backlog` is a gap left earlier, read oldest first with the room the new messages leave.
    package func read(_ conversationID: UUID, since watermark: Watermark? = nil, backlog: Gap? = nil, newestFirst: Bool = false,
                     now: Date, on db: PostgresConnection) async throws -> Read? {
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
        let readAt: Date = try await db.query("SELECT now() AS t")[0].decode("t")
        var messages: [InputMessage]
        var firstNew = 0
        var newest: InputMessage?
        var overflow: Gap?
        var backlogRead: BacklogRead?
        var edits = Edits()
        if let watermark {
            // Newest first: with more new messages than the cap, the newest window (today's) is read and the ones
            // between the watermark and it become a backlog gap, read oldest first with the room later reads leave.
            let newRows = try await db.query(
                """
                SELECT * FROM (
                  SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages m
                  WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) > ($2, $3::uuid)
                    AND NOT EXISTS (SELECT 1 FROM scan_future_messages f WHERE f.conversation_id = $1 AND f.message_id = m.id)
                  ORDER BY created_at \(newestFirst ? "DESC" : ""), id \(newestFirst ? "DESC" : "") LIMIT $4) AS new
                ORDER BY created_at, id
                """, [conversationID, watermark.sentAt, watermark.messageID, newestFirst ? maxMessages + 1 : maxMessages])
            var fresh = try newRows.map(message)
            if newestFirst, fresh.count > maxMessages {
                fresh.removeFirst()
                let first = fresh[0]
                overflow = Gap(after: watermark, before: Watermark(sentAt: first.sentAt, messageID: UUID(uuidString: first.id) ?? UUID()))
            }
            newest = fresh.last
            var older: [InputMessage] = []
            if let gap = backlog, fresh.count < maxMessages {
                let rows = try await db.query(
                    """
                    SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages m
                    WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) > ($2, $3::uuid)
                      AND (created_at, id) < ($4, $5::uuid)
                      AND NOT EXISTS (SELECT 1 FROM scan_future_messages f WHERE f.conversation_id = $1 AND f.message_id = m.id)
                    ORDER BY created_at, id LIMIT $6
                    """, [conversationID, gap.after.sentAt, gap.after.messageID, gap.before.sentAt, gap.before.messageID,
                          maxMessages - fresh.count])
                older = try rows.map(message)
                let room = maxMessages - fresh.count
                backlogRead = BacklogRead(gap: gap, through: older.last.map { Watermark(sentAt: $0.sentAt, messageID: UUID(uuidString: $0.id) ?? UUID()) },
                                          done: older.count < room)
            }
            // Context: the messages just before the earliest part read.
            let contextEnd = older.isEmpty ? watermark : (backlog?.after ?? watermark)
            let contextRows = try await db.query(
                """
                SELECT * FROM (
                  SELECT id::text AS id, sender_id::text AS sender, created_at, content FROM messages
                  WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) <= ($2, $3::uuid)
                  ORDER BY created_at DESC, id DESC LIMIT $4) AS earlier
                ORDER BY created_at, id
                """, [conversationID, contextEnd.sentAt, contextEnd.messageID, contextMessages])
            let context = try contextRows.map(message)
            messages = context + older + fresh
            firstNew = context.count
            // Edited messages are new again, with their own context; every message from the first of them on is new.
            if let since = try await lastRead(conversationID, on: db) {
                edits = try await self.edits(conversationID, watermark: watermark, since: since, readAt: readAt, on: db)
            }
            if !edits.messages.isEmpty {
                let unread = Set(older.map(\.id) + fresh.map(\.id)).union(edits.edited)
                var seen = Set(messages.map(\.id))
                messages += edits.messages.filter { seen.insert($0.id).inserted }
                messages.sort { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }
                firstNew = messages.firstIndex { unread.contains($0.id) } ?? messages.count
            }
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
            newest = messages.last
        }
        var futureDated: [UUID] = []
        func clamped(_ message: InputMessage) -> InputMessage {
            guard message.sentAt > readAt else { return message }
            return InputMessage(id: message.id, senderID: message.senderID, sentAt: readAt, text: message.text)
        }
        for message in messages where message.sentAt > readAt {
            if let id = UUID(uuidString: message.id) { futureDated.append(id) }
        }
        messages = messages.map(clamped)
        newest = newest.map(clamped)
        // Relative dates are read in the zone most participants set (the default zone when none did).
        let zoneName = zones.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        let input = ConversationInput(
            conversationID: conversationID.postgresValue,
            name: try head.decode("name", as: String?.self) ?? "Conversation",
            isGroup: try head.decode("is_group"),
            participants: people, messages: messages, firstNewIndex: firstNew,
            timeZone: zoneName.flatMap { zoneNamed[$0] } ?? self.zones.fallback, now: now)
        var read = Read(input: input, futureDated: futureDated, readAt: readAt, newest: newest, overflow: overflow, backlogRead: backlogRead)
        read.input.deletedMessageIDs = edits.deleted
        read.edits = edits
        return read
    }

    /// Messages of the conversation older than `message` (the oldest one read): on a first read of more than
    /// `maxMessages`, the ones left out, which the watermark then moves past.
    package func count(olderThan message: InputMessage, in conversationID: UUID, on db: PostgresConnection) async throws -> Int {
        guard let id = UUID(uuidString: message.id) else { return 0 }
        return try await db.query(
            """
            SELECT count(*) AS n FROM messages
            WHERE conversation_id = $1 AND deleted_at IS NULL AND (created_at, id) < ($2, $3::uuid)
            """, [conversationID, message.sentAt, id])[0].decode("n")
    }

    func message(_ row: PostgresRow) throws -> InputMessage {
        let text: String = try row.decode("content")
        return InputMessage(id: try row.decode("id"), senderID: try row.decode("sender", as: String?.self) ?? "unknown",
                            sentAt: try row.decode("created_at"),
                            text: text.count > maxMessageCharacters ? String(text.prefix(maxMessageCharacters - 1)) + "…" : text)
    }
}
