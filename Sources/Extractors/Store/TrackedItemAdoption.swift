import Core
import Foundation
import Postgres

/// The first night of tracked items in a conversation: its current rows of the five tables become tracked items,
/// each under a new ref, and the rows are re-keyed by that ref (`<feature>:<conversation>:<ref>`), so the night's
/// answer updates them instead of adding a second row. Rows the app wrote (no key) are adopted as `.app` items
/// (never removed), rows of earlier nights (keyed by first message and date) as `.service`; `confirmed`, `dismissed`
/// and deadlines completed in the app are the parent's actions. Rows dated before today stay as they are: history.
struct TrackedItemAdoption {
    let db: PostgresConnection
    let conversationID: UUID
    let today: LocalDate
    /// False: only read, rows left as they are.
    var rekey = true

    private var conversation: String { conversationID.postgresValue }

    /// One adopted item: its tracked form and how to give its rows the ref's key.
    private struct Adopted {
        var item: TrackedItem
        /// The rows' ids (several for per-user tables).
        var rowIDs: [UUID]
    }

    func adopt() async throws -> ConversationState {
        var state = ConversationState()
        // Most conversations have no open row of any of the five tables (nothing found yet): one query instead of five,
        // every night until they have an item.
        guard try await hasOpenRows() else { return state }
        for adopted in try await events() + decisions() + priorities() + rsvps() + deadlines() {
            if let date = adopted.item.body.keyDate, date < today { continue }
            let ref = state.add(adopted.item.body)
            state.update(ref) {
                $0.origin = adopted.item.origin
                $0.confirmed = adopted.item.confirmed
                $0.closedInApp = adopted.item.closedInApp
                $0.metFor = adopted.item.metFor
            }
            if rekey { try await rekey(adopted, key: TrackedItemStore.rowKey(adopted.item.body, ref: ref, conversation: conversation)) }
        }
        return state
    }

    /// Whether the conversation has an open row in any of the five tables.
    private func hasOpenRows() async throws -> Bool {
        let row = try await db.query("""
            SELECT EXISTS (SELECT 1 FROM calendar_events WHERE conversation_id = $1 AND closed_at IS NULL)
                OR EXISTS (SELECT 1 FROM decisions WHERE conversation_id = $1 AND closed_at IS NULL)
                OR EXISTS (SELECT 1 FROM priority_messages WHERE conversation_id = $1 AND closed_at IS NULL)
                OR EXISTS (SELECT 1 FROM rsvp_tracking WHERE conversation_id = $1 AND closed_at IS NULL)
                OR EXISTS (SELECT 1 FROM deadlines WHERE conversation_id = $1 AND closed_at IS NULL) AS any
            """, [conversationID]).first
        return try row?.decode("any", as: Bool.self) ?? true
    }

    private func rekey(_ adopted: Adopted, key: String) async throws {
        switch adopted.item.body {
        case .event: try await db.query("UPDATE calendar_events SET idempotency_key = $1 WHERE id = $2", [key, adopted.rowIDs[0]])
        case .decision: try await db.query("UPDATE decisions SET idempotency_key = $1 WHERE id = $2", [key, adopted.rowIDs[0]])
        case .priority:
            try await db.query("UPDATE priority_messages SET idempotency_key = $1 WHERE message_id = $2", [key, adopted.rowIDs[0]])
        case .rsvp:
            try await db.query("UPDATE rsvp_tracking SET item_key = $1, idempotency_key = $1 || ':' || user_id::text WHERE id = ANY($2::uuid[])",
                               [key, adopted.rowIDs])
        case .deadline:
            try await db.query("UPDATE deadlines SET item_key = $1, idempotency_key = $1 || ':' || user_id::text WHERE id = ANY($2::uuid[])",
                               [key, adopted.rowIDs])
            // A reminder's key follows its deadline row's (`Deadlines.remind`).
            try await db.query("""
                UPDATE reminders r SET idempotency_key = 'reminder:' || d.idempotency_key, item_key = 'reminder:' || d.idempotency_key
                FROM deadlines d WHERE r.deadline_id = d.id AND d.id = ANY($1::uuid[])
                """, [adopted.rowIDs])
        }
    }

    /// Items in the order their first messages were sent, as a night's answer lists them, so adopted refs follow
    /// the chat (the row `t` of each table's query).
    private static let messageOrder = "(SELECT m.created_at FROM messages m WHERE m.id = t.message_id), t.message_id, t.created_at"

    private static func origin(_ key: String?) -> ItemOrigin { key == nil ? .app : .service }

    private static func sources(_ ids: [String], _ first: String?) -> [String] {
        ids.isEmpty ? first.map { [$0] } ?? [] : ids
    }

    private func events() async throws -> [Adopted] {
        try await db.query("""
            SELECT id, idempotency_key, title, date, time, end_time, location, COALESCE(description, '') AS description, category,
                   COALESCE(confidence, 0.5) AS confidence, date_phrase, model_date, source_message_ids::text[] AS sources,
                   message_id::text AS message_id, COALESCE(confirmed, false) AS confirmed
            FROM calendar_events t WHERE conversation_id = $1 AND closed_at IS NULL ORDER BY \(Self.messageOrder)
            """, [conversationID]).compactMap { row in
            let sources = Self.sources(try row.decode("sources"), try row.decode("message_id"))
            guard !sources.isEmpty else { return nil }
            let key: String? = try row.decode("idempotency_key")
            let item = EventItem(
                title: try row.decode("title"), date: try row.decode("date"), time: try row.decode("time"),
                endTime: try row.decode("end_time"), location: try row.decode("location"), description: try row.decode("description"),
                category: EventCategory(rawValue: try row.decode("category", as: String?.self) ?? "") ?? .other,
                confidence: try row.decode("confidence"), datePhrase: try row.decode("date_phrase"), modelDate: try row.decode("model_date"),
                sources: sources)
            return Adopted(item: TrackedItem(ref: "", body: .event(item), origin: Self.origin(key), confirmed: try row.decode("confirmed")),
                           rowIDs: [try row.decode("id")])
        }
    }

    private func decisions() async throws -> [Adopted] {
        try await db.query("""
            SELECT id, idempotency_key, decision_text, category, decided_by::text AS decided_by, deadline, date_phrase, model_date,
                   source_message_ids::text[] AS sources, message_id::text AS message_id
            FROM decisions t WHERE conversation_id = $1 AND closed_at IS NULL ORDER BY \(Self.messageOrder)
            """, [conversationID]).compactMap { row in
            let sources = Self.sources(try row.decode("sources"), try row.decode("message_id"))
            guard !sources.isEmpty else { return nil }
            let item = DecisionItem(
                decision: try row.decode("decision_text"),
                category: DecisionCategory(rawValue: try row.decode("category", as: String?.self) ?? "") ?? .other,
                decidedBy: try row.decode("decided_by"), deadline: try row.decode("deadline"), datePhrase: try row.decode("date_phrase"),
                modelDate: try row.decode("model_date"), sources: sources)
            return Adopted(item: TrackedItem(ref: "", body: .decision(item), origin: Self.origin(try row.decode("idempotency_key"))),
                           rowIDs: [try row.decode("id")])
        }
    }

    private func priorities() async throws -> [Adopted] {
        try await db.query("""
            SELECT message_id, idempotency_key, priority, reason, COALESCE(action_required, false) AS action_required,
                   COALESCE(dismissed, false) AS dismissed
            FROM priority_messages t WHERE conversation_id = $1 AND closed_at IS NULL ORDER BY \(Self.messageOrder)
            """, [conversationID]).map { row in
            let id: UUID = try row.decode("message_id")
            let item = PriorityItem(messageID: id.postgresValue, priority: try row.decode("priority"), reason: try row.decode("reason"),
                                    actionRequired: try row.decode("action_required"))
            return Adopted(item: TrackedItem(ref: "", body: .priority(item), origin: Self.origin(try row.decode("idempotency_key")),
                                             closedInApp: try row.decode("dismissed")),
                           rowIDs: [id])
        }
    }

    /// One item per request (the service's item key, else the app's request message), each answer in a message kept.
    private func rsvps() async throws -> [Adopted] {
        var items: [String: Adopted] = [:]
        var order: [String] = []
        for row in try await db.query("""
            SELECT id, idempotency_key, COALESCE(item_key, message_id::text) AS item, message_id::text AS message_id,
                   user_id::text AS user_id, event_name, requested_by::text AS requested_by, deadline, event_date, status, response,
                   response_message_id::text AS response_message_id, date_phrase, model_date
            FROM rsvp_tracking t WHERE conversation_id = $1 AND closed_at IS NULL AND message_id IS NOT NULL
            ORDER BY \(Self.messageOrder)
            """, [conversationID]) {
            let group: String = try row.decode("item")
            if items[group] == nil {
                let item = RSVPItem(
                    event: try row.decode("event_name"), eventDate: try row.decode("event_date"), deadline: try row.decode("deadline"),
                    requestedBy: try row.decode("requested_by"), datePhrase: try row.decode("date_phrase"),
                    modelDate: try row.decode("model_date"), sources: [try row.decode("message_id")], responses: [])
                items[group] = Adopted(item: TrackedItem(ref: "", body: .rsvp(item), origin: Self.origin(try row.decode("idempotency_key"))),
                                       rowIDs: [])
                order.append(group)
            }
            items[group]?.rowIDs.append(try row.decode("id"))
            if let response: String = try row.decode("response"), let message: String = try row.decode("response_message_id"),
               let user: String = try row.decode("user_id"), case .rsvp(var item) = items[group]?.item.body {
                item.responses.append(RSVPReply(participantID: user, response: response, messageID: message))
                items[group]?.item.body = .rsvp(item)
            }
        }
        return order.compactMap { items[$0] }
    }

    /// One item per task (the service's item key, else the app's message, date and task), with the parents who
    /// completed it in the app.
    private func deadlines() async throws -> [Adopted] {
        var items: [String: Adopted] = [:]
        var order: [String] = []
        var owners: [String: Int] = [:]
        for row in try await db.query("""
            SELECT id, idempotency_key, COALESCE(item_key, message_id::text || ':' || deadline::text || ':' || task) AS item,
                   message_id::text AS message_id, user_id::text AS user_id, task, deadline, deadline_time, category, priority,
                   details, date_phrase, model_date, status = 'completed' AS completed
            FROM deadlines t WHERE conversation_id = $1 AND closed_at IS NULL AND message_id IS NOT NULL
            ORDER BY \(Self.messageOrder)
            """, [conversationID]) {
            let group: String = try row.decode("item")
            if items[group] == nil {
                let item = DeadlineItem(
                    task: try row.decode("task"), deadline: try row.decode("deadline"), time: try row.decode("deadline_time"),
                    category: DeadlineCategory(rawValue: try row.decode("category", as: String?.self) ?? "") ?? .other,
                    priority: try row.decode("priority", as: String?.self) ?? "medium", details: try row.decode("details"),
                    datePhrase: try row.decode("date_phrase"), modelDate: try row.decode("model_date"),
                    sources: [try row.decode("message_id")])
                items[group] = Adopted(item: TrackedItem(ref: "", body: .deadline(item), origin: Self.origin(try row.decode("idempotency_key"))),
                                       rowIDs: [])
                order.append(group)
            }
            items[group]?.rowIDs.append(try row.decode("id"))
            owners[group, default: 0] += 1
            if try row.decode("completed", as: Bool.self), let user: String = try row.decode("user_id") {
                items[group]?.item.metFor.insert(user)
            }
        }
        for group in order where items[group]?.item.metFor.count == owners[group] { items[group]?.item.closedInApp = true }
        return order.compactMap { items[$0] }
    }
}
