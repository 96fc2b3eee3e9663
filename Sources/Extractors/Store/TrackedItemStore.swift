import Core
package import Foundation
package import Postgres

/// A conversation's `ConversationState` in Postgres (docs/over-nights.md, phase 2 point 1): the items of
/// `tracked_items`, with what the parent did in the app read from the app's own rows (a confirmed event, a dismissed
/// priority message, a deadline she completed). A conversation with no tracked item yet adopts the rows earlier
/// nights and the app wrote (`TrackedItemAdoption`), so the first night of tracked items does not write them twice.
/// Everything runs on the caller's connection, inside its transaction.
package struct TrackedItemStore: Sendable {
    package init() {}

    /// The key of an item's rows: `<feature>:<conversation>:<ref>`; a per-user row adds `:<user>` to it.
    static func rowKey(_ body: ItemBody, ref: String, conversation: String) -> String {
        "\(body.rowKeyPrefix):\(conversation):\(ref)"
    }

    /// The conversation's tracked items in the order first seen; adopted from its rows when it has none yet (rows
    /// dated before today in `timeZone` at `now` are history and are not adopted). `rekeyAdopted` false: only read
    /// (the request built before the model call); the write that follows adopts the same rows under the same refs and
    /// re-keys them, in its transaction.
    package func load(_ conversationID: UUID, now: Date, timeZone: TimeZone, rekeyAdopted: Bool = true,
                      on db: PostgresConnection) async throws -> ConversationState {
        try await loadNight(conversationID, now: now, timeZone: timeZone, rekeyAdopted: rekeyAdopted, on: db).state
    }

    /// The state and whether it was adopted from the rows just now (the night then writes every adopted item's rows,
    /// so they carry the service's columns and reminders).
    func loadNight(_ conversationID: UUID, now: Date, timeZone: TimeZone, rekeyAdopted: Bool = true,
                   on db: PostgresConnection) async throws -> (state: ConversationState, adopted: Bool) {
        let rows = try await db.query(Self.loadSQL, [conversationID])
        guard !rows.isEmpty else {
            return (try await TrackedItemAdoption(db: db, conversationID: conversationID, today: LocalDate(now, in: timeZone),
                                                  rekey: rekeyAdopted).adopt(), true)
        }
        var items: [TrackedItem] = []
        for row in rows {
            let ref: String = try row.decode("ref")
            let json: JSONValue = try row.decode("item")
            let body: ItemBody
            do {
                body = try json.decode(ItemBody.self)
            } catch {
                throw ExtractionError.invalidInput("tracked_items \(conversationID.postgresValue) \(ref): the item is not a tracked item's JSON: \(error)")
            }
            let status = ItemStatus(rawValue: try row.decode("status")) ?? .open
            items.append(TrackedItem(
                ref: ref, body: body, status: status, metFor: Set(try row.decode("met_for", as: [String].self)),
                until: try row.decode("until"), origin: ItemOrigin(rawValue: try row.decode("origin")) ?? .service))
        }
        try await overlayParentActions(&items, conversationID, on: db)
        return (ConversationState(items: items), false)
    }

    /// What the parent did in the app, from the rows keyed by each item's ref: a confirmed event stays confirmed, a
    /// dismissed priority message is closed in the app, and a deadline a parent completed in the app (not one the chat
    /// met for her) is met for her; completed by every parent who owes it, it is closed in the app.
    private func overlayParentActions(_ items: inout [TrackedItem], _ conversationID: UUID, on db: PostgresConnection) async throws {
        var confirmed: Set<String> = [], dismissed: Set<String> = []
        var owners: [String: (all: Int, doneInApp: Set<String>)] = [:]
        for row in try await db.query(Self.parentActionsSQL, [conversationID]) {
            let key: String = try row.decode("item_key")
            switch try row.decode("kind", as: String.self) {
            case "confirmed": confirmed.insert(key)
            case "dismissed": dismissed.insert(key)
            default:
                var entry = owners[key] ?? (0, [])
                entry.all += 1
                if try row.decode("done_in_app", as: Bool.self) { entry.doneInApp.insert(try row.decode("user_id")) }
                owners[key] = entry
            }
        }
        let conversation = conversationID.postgresValue
        for index in items.indices {
            let key = Self.rowKey(items[index].body, ref: items[index].ref, conversation: conversation)
            switch items[index].body {
            case .event: items[index].confirmed = confirmed.contains(key)
            case .priority: items[index].closedInApp = dismissed.contains(key)
            case .deadline:
                guard let entry = owners[key], !entry.doneInApp.isEmpty else { continue }
                items[index].metFor.formUnion(entry.doneInApp)
                items[index].closedInApp = entry.doneInApp.count == entry.all
            case .decision, .rsvp: break
            }
        }
    }

    /// Saves `state` (upsert by conversation and ref; an unchanged item is not touched). Parameterized; the caller's
    /// transaction. Parent actions are not saved here: they live in the app's rows. `closedReasons` by ref: a closed
    /// item's reason when it is not its status (`superseded`: an `extract` over the whole chat no longer has it).
    /// `only`: the refs that may have changed (the night's touched items); nil saves every item (an adopted state).
    package func save(_ state: ConversationState, conversationID: UUID, runID: UUID?, closedReasons: [String: String] = [:],
                      only: Set<String>? = nil, on db: PostgresConnection) async throws {
        // One statement for the night's items (arrays unnested), not one round trip per item.
        var refs: [String] = [], features: [String] = [], bodies: [String] = [], statuses: [String] = []
        var reasons: [String] = [], metFor: [String] = [], untils: [String] = [], origins: [String] = [], positions: [Int] = []
        for (position, item) in state.items.enumerated() where only?.contains(item.ref) ?? true {
            refs.append(item.ref)
            features.append(item.body.feature.rawValue)
            bodies.append(try JSONValue.encode(item.body).serialized())
            statuses.append(item.status.rawValue)
            // Arrays carry no NULL here (PostgresArrays): an empty string stands for none, turned back by NULLIF.
            reasons.append(item.status == .open ? "" : closedReasons[item.ref] ?? item.status.rawValue)
            // A uuid[] per row cannot ride in a 2-D array of unequal lengths: each row's participants as one JSON array.
            metFor.append(JSONValue.array(item.metFor.sorted().filter { UUID(uuidString: $0) != nil }.map(JSONValue.string)).serialized())
            untils.append(item.until?.iso ?? "")
            origins.append(item.origin.rawValue)
            positions.append(position)
        }
        guard !refs.isEmpty else { return }
        try await db.query(Self.upsertSQL, [conversationID, refs, features, bodies, statuses, reasons, metFor, untils, origins, positions, runID])
    }

    static let loadSQL = """
        SELECT ref, item, status, met_for::text[] AS met_for, until, origin FROM tracked_items
        WHERE conversation_id = $1 ORDER BY position, first_seen_at, ref
        """

    /// In one round trip: the keys of confirmed events and dismissed priority messages, and each deadline row of the
    /// conversation with whether its parent completed it in the app (not met by the chat).
    static let parentActionsSQL = """
        SELECT 'confirmed' AS kind, idempotency_key AS item_key, NULL::text AS user_id, false AS done_in_app
        FROM calendar_events WHERE conversation_id = $1 AND confirmed IS TRUE AND idempotency_key IS NOT NULL
        UNION ALL
        SELECT 'dismissed', idempotency_key, NULL, false
        FROM priority_messages WHERE conversation_id = $1 AND dismissed IS TRUE AND idempotency_key IS NOT NULL
        UNION ALL
        SELECT 'deadline', item_key, user_id::text, (status = 'completed' AND closed_reason IS DISTINCT FROM 'met')
        FROM deadlines WHERE conversation_id = $1 AND item_key IS NOT NULL AND user_id IS NOT NULL
        """

    /// $1 conversation, $11 run; one array element per item: $2 ref, $3 feature, $4 item (JSON), $5 status, $6 closed
    /// reason ('' for none), $7 met for (a JSON array of participant ids), $8 until ('' for none), $9 origin, $10 position.
    static let upsertSQL = """
        INSERT INTO tracked_items (conversation_id, ref, feature, item, status, closed_reason, met_for, until, origin, position,
                                   last_run_id)
        SELECT $1, t.ref, t.feature, t.item::jsonb, t.status, NULLIF(t.reason, ''),
               ARRAY(SELECT jsonb_array_elements_text(t.met_for::jsonb))::uuid[], NULLIF(t.until, '')::date, t.origin, t.position, $11
        FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[])
             AS t(ref, feature, item, status, reason, met_for, until, origin, position)
        ON CONFLICT (conversation_id, ref) DO UPDATE SET feature = EXCLUDED.feature, item = EXCLUDED.item,
            status = EXCLUDED.status, closed_reason = EXCLUDED.closed_reason, met_for = EXCLUDED.met_for,
            until = EXCLUDED.until, origin = EXCLUDED.origin, position = EXCLUDED.position, last_run_id = EXCLUDED.last_run_id,
            updated_at = now()
        WHERE (tracked_items.feature, tracked_items.item, tracked_items.status, tracked_items.closed_reason,
               tracked_items.met_for, tracked_items.until, tracked_items.origin, tracked_items.position)
            IS DISTINCT FROM (EXCLUDED.feature, EXCLUDED.item, EXCLUDED.status, EXCLUDED.closed_reason, EXCLUDED.met_for,
               EXCLUDED.until, EXCLUDED.origin, EXCLUDED.position)
        """
}
