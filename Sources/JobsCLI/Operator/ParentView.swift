import Core
package import Foundation
package import Postgres
import JobsKit

/// What the app shows one parent now, feature by feature (`messageai-jobs show --user U`): the rows her row level
/// security lets her read (the conversation tables of her conversations, her own RSVPs, deadlines and reminders), each
/// with the messages it was read from (its evidence), the words its date was read from, and which run, prompt
/// version and model wrote it. Read-only.
package struct ParentView: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    package struct View: Sendable, Codable {
        package var userID: UUID
        package var userName: String?
        package var conversations: [Conversation]
        /// Each feature's items, in `ParentView.features` order (every feature listed, empty ones too).
        package var features: [Feature]

        enum CodingKeys: String, CodingKey { case userID = "user_id", userName = "user_name", conversations, features }
    }

    package struct Conversation: Sendable, Codable {
        package var id: UUID
        package var name: String?
    }

    package struct Feature: Sendable, Codable {
        /// The table the app reads.
        package var table: String
        package var items: [Item]
    }

    /// One row as the app shows it, with why it is there.
    package struct Item: Sendable, Codable {
        package var id: String
        package var text: String
        /// Its date (and time), as the row holds them.
        package var date: String?
        /// The words the date was read from; the model's own date when code read the phrase differently.
        package var datePhrase: String?
        package var modelDate: String?
        package var status: String?
        package var conversationID: UUID?
        /// The messages it was read from, oldest first: the evidence the parent can open.
        package var sources: [Source]
        package var provenance: Provenance

        enum CodingKeys: String, CodingKey {
            case id, text, date, status, sources, provenance
            case datePhrase = "date_phrase", modelDate = "model_date", conversationID = "conversation_id"
        }
    }

    package struct Source: Sendable, Codable {
        package var messageID: UUID
        package var sentAt: Date?
        package var sender: String?
        /// The message's text, cut to `ParentView.quoteLength` characters; nil when the message is gone.
        package var text: String?

        enum CodingKeys: String, CodingKey { case messageID = "message_id", sentAt = "sent_at", sender, text }
    }

    /// Which run wrote the row, with which prompt version and model; all nil for a row the app wrote itself.
    package struct Provenance: Sendable, Codable {
        package var runID: UUID?
        package var promptID: String?
        package var promptVersion: Int?
        package var model: String?

        enum CodingKeys: String, CodingKey { case runID = "run_id", promptID = "prompt_id", promptVersion = "prompt_version", model }

        package var text: String {
            guard runID != nil || promptID != nil else { return "written by the app (no run)" }
            return [runID.map { "run \($0.uuidString.lowercased())" },
                    promptID.map { "prompt \($0)" + (promptVersion.map { "@\($0)" } ?? "") },
                    model.map { "model \($0)" }].compactMap { $0 }.joined(separator: ", ")
        }
    }

    /// Characters of a source message shown.
    static let quoteLength = 400

    /// Each table the app shows, as one query over the same columns: `$1` her conversations, `$2` the user.
    static let features: [(table: String, sql: String)] = [
        ("calendar_events", """
            SELECT id::text AS id, conversation_id, title || COALESCE(' @ ' || location, '') AS text,
                   date::text || COALESCE(' ' || to_char(time, 'HH24:MI'), '') || COALESCE('-' || to_char(end_time, 'HH24:MI'), '') AS day,
                   date_phrase, model_date::text AS model_date, CASE WHEN confirmed THEN 'confirmed' END AS status,
                   COALESCE(source_message_ids, ARRAY[message_id]) AS sources, run_id, prompt_id, prompt_version, model
            FROM calendar_events WHERE conversation_id = ANY($1::uuid[]) AND $2::uuid IS NOT NULL ORDER BY date, time NULLS FIRST, id
            """),
        ("decisions", """
            SELECT id::text AS id, conversation_id, decision_text AS text, deadline::text AS day, date_phrase,
                   model_date::text AS model_date, NULL::text AS status, COALESCE(source_message_ids, ARRAY[message_id]) AS sources,
                   run_id, prompt_id, prompt_version, model
            FROM decisions WHERE conversation_id = ANY($1::uuid[]) AND $2::uuid IS NOT NULL ORDER BY created_at, id
            """),
        ("priority_messages", """
            SELECT message_id::text AS id, conversation_id, priority || ': ' || COALESCE(reason, '') AS text, NULL::text AS day,
                   NULL::text AS date_phrase, NULL::text AS model_date,
                   concat_ws(', ', CASE WHEN action_required THEN 'action required' END, CASE WHEN dismissed THEN 'dismissed' END) AS status,
                   ARRAY[message_id] AS sources, run_id, prompt_id, prompt_version, model
            FROM priority_messages WHERE conversation_id = ANY($1::uuid[]) AND $2::uuid IS NOT NULL ORDER BY created_at, message_id
            """),
        ("rsvp_tracking", """
            SELECT id::text AS id, conversation_id, event_name AS text,
                   event_date::text || COALESCE(' (answer by ' || deadline::text || ')', '') AS day, date_phrase,
                   model_date::text AS model_date, status || COALESCE(': ' || response, '') AS status,
                   array_remove(ARRAY[message_id, response_message_id], NULL) AS sources, run_id, prompt_id, prompt_version, model
            FROM rsvp_tracking WHERE user_id = $2 AND (conversation_id IS NULL OR conversation_id = ANY($1::uuid[]))
            ORDER BY event_date NULLS LAST, id
            """),
        ("deadlines", """
            SELECT id::text AS id, conversation_id, task || COALESCE(' (' || details || ')', '') AS text,
                   deadline::text || COALESCE(' ' || to_char(deadline_time, 'HH24:MI'), '') AS day, date_phrase,
                   model_date::text AS model_date, status, array_remove(ARRAY[message_id], NULL) AS sources,
                   run_id, prompt_id, prompt_version, model
            FROM deadlines WHERE user_id = $2 AND (conversation_id IS NULL OR conversation_id = ANY($1::uuid[]))
            ORDER BY deadline, id
            """),
        ("reminders", """
            SELECT id::text AS id, conversation_id, title AS text, to_char(reminder_time, 'YYYY-MM-DD HH24:MI') || ' UTC' AS day,
                   NULL::text AS date_phrase, NULL::text AS model_date, status || COALESCE(' (' || origin || ')', '') AS status,
                   COALESCE((SELECT array_remove(ARRAY[d.message_id], NULL) FROM deadlines d WHERE d.id = r.deadline_id), ARRAY[]::uuid[]) AS sources,
                   run_id, prompt_id, prompt_version, model
            FROM reminders r WHERE user_id = $2 AND (conversation_id IS NULL OR conversation_id = ANY($1::uuid[]))
            ORDER BY reminder_time, id
            """),
    ]

    /// The view of `userID`, of all her conversations or only `conversationID` (which must be hers).
    package func view(userID: UUID, conversationID: UUID? = nil) async throws -> View {
        try await pool.withConnection { db in
            guard let user = try await db.query("SELECT id, COALESCE(display_name, username) AS name FROM users WHERE id = $1", [userID]).first else {
                throw JobsError.notFound("no user with id \(userID.postgresValue)")
            }
            var conversations = try await db.query(
                """
                SELECT c.id, c.name FROM conversation_participants p JOIN conversations c ON c.id = p.conversation_id
                WHERE p.user_id = $1 ORDER BY c.name NULLS LAST, c.id
                """, [userID]).map { Conversation(id: try $0.decode("id"), name: try $0.decode("name")) }
            if let conversationID {
                conversations = conversations.filter { $0.id == conversationID }
                guard !conversations.isEmpty else {
                    throw JobsError.notFound("user \(userID.postgresValue) is not a participant of conversation \(conversationID.postgresValue): the app shows her nothing of it")
                }
            }
            let ids = conversations.map(\.id)
            var features: [Feature] = []
            var wanted: Set<UUID> = []
            var rows: [(String, [PostgresRow])] = []
            for (table, sql) in Self.features {
                var found = Array(try await db.query(sql, [ids, userID]))
                if conversationID != nil { found = try found.filter { try $0.decode("conversation_id", as: UUID?.self) == conversationID } }
                for row in found { wanted.formUnion(try row.decode("sources", as: [UUID].self)) }
                rows.append((table, found))
            }
            let messages = try await Self.messages(Array(wanted), on: db)
            for (table, found) in rows {
                features.append(Feature(table: table, items: try found.map { row in
                    let sources = try row.decode("sources", as: [UUID].self)
                    return Item(
                        id: try row.decode("id"), text: try row.decode("text"), date: try row.decode("day"),
                        datePhrase: try row.decode("date_phrase"), modelDate: try row.decode("model_date"),
                        status: (try row.decode("status", as: String?.self)).flatMap { $0.isEmpty ? nil : $0 },
                        conversationID: try row.decode("conversation_id"),
                        sources: sources.map { messages[$0] ?? Source(messageID: $0) }.sorted { ($0.sentAt ?? .distantPast) < ($1.sentAt ?? .distantPast) },
                        provenance: Provenance(runID: try row.decode("run_id"), promptID: try row.decode("prompt_id"),
                                               promptVersion: try row.decode("prompt_version"), model: try row.decode("model")))
                }))
            }
            return View(userID: userID, userName: try user.decode("name"), conversations: conversations, features: features)
        }
    }

    /// The source messages as the app shows them (deleted ones without their text).
    static func messages(_ ids: [UUID], on db: PostgresConnection) async throws -> [UUID: Source] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await db.query(
            """
            SELECT m.id, messageai_utc(m.created_at) AS sent_at, COALESCE(u.display_name, u.username) AS sender,
                   CASE WHEN m.deleted_at IS NULL THEN left(m.content, $2) END AS text
            FROM messages m LEFT JOIN users u ON u.id = m.sender_id WHERE m.id = ANY($1::uuid[])
            """, [ids, quoteLength])
        var found: [UUID: Source] = [:]
        for row in rows {
            let id: UUID = try row.decode("id")
            found[id] = Source(messageID: id, sentAt: try row.decode("sent_at"), sender: try row.decode("sender"), text: try row.decode("text"))
        }
        return found
    }
}

extension ParentView.Source {
    init(messageID: UUID) { self.init(messageID: messageID, sentAt: nil, sender: nil, text: nil) }
}
