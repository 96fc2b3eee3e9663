import Chrono
import Foundation
import Postgres

/// Writes one conversation's extraction idempotently, inside the caller's transaction, into the app's tables
/// (MessageAI PRD section 7) the way its Edge Functions filled them: `message_id` is the item's first source
/// message, a deadline's reminder is "Reminder: <task>" at 18:00 the evening before, `created_by` is 'ai'.
///
/// Each row's `idempotency_key` comes from the item's identity (first source message and key date), so a
/// re-run updates rows instead of adding them, and rows whose content did not change are not touched at all.
/// A row the app already holds for the same item (written by the PRD's Edge Functions: no key, same message and
/// date) is adopted: it gets the key and is updated instead of a second row being added.
/// Columns the app's users own (confirmed, dismissed, a completed deadline, a dismissed reminder) are never
/// overwritten; an RSVP seen as answered never goes back to pending. Rows without a key (the app's) are never removed.
public struct ExtractionStore: Sendable {
    public struct Provenance: Sendable {
        public let runID: UUID?
        public let prompts: [ExtractionFeature: PromptRef]

        public init(runID: UUID?, prompts: [ExtractionFeature: PromptRef]) {
            self.runID = runID
            self.prompts = prompts
        }
    }

    /// Rows per feature: new, changed, and removed (replace mode).
    public struct WriteSummary: Sendable, Codable, Hashable {
        public var inserted: [String: Int] = [:]
        public var updated: [String: Int] = [:]
        public var removed: [String: Int] = [:]
        public var remindersCreated = 0

        public init() {}
    }

    /// The reminder for a deadline: the evening before, at this local time (the PRD's 6 PM).
    public static let reminderTime = LocalTime(hour: 18, minute: 0)!

    /// The zone of users without a `user_settings` row (their deadlines' due time and reminders).
    public var zones: UserTimeZonePolicy

    public init(zones: UserTimeZonePolicy = .environment) {
        self.zones = zones
    }

    /// A deadline reminder's title, as the PRD's Edge Function wrote it.
    public static func reminderTitle(task: String) -> String { "Reminder: \(task)" }

    /// - Parameter replace: the extraction covered the whole conversation, so AI rows of these features that it
    ///   no longer produces (a cancelled plan) are removed, unless a user acted on them.
    public func write(
        _ extraction: Extraction, input: ConversationInput, features: [ExtractionFeature], provenance: Provenance,
        replace: Bool, now: Date, on db: PostgresConnection
    ) async throws -> WriteSummary {
        guard let conversationID = UUID(uuidString: input.conversationID) else {
            throw ExtractionError.invalidInput("conversation id '\(input.conversationID)' is not a UUID")
        }
        let zones = try await userTimeZones(input.participants.compactMap { UUID(uuidString: $0.id) }, on: db)
        var writer = RowWriter(db: db, conversationID: conversationID, input: input, provenance: provenance, zones: zones, now: now)
        for feature in features.sorted() {
            try await writer.write(feature, extraction)
            if replace { try await writer.removeStale(feature) }
        }
        return writer.summary
    }

    /// Each participant's zone by ``UserTimeZonePolicy``: her `user_settings` row, else the default zone.
    private func userTimeZones(_ ids: [UUID], on db: PostgresConnection) async throws -> [String: TimeZone] {
        var zones: [String: TimeZone] = [:]
        for row in try await db.query("SELECT user_id::text AS id, time_zone FROM user_settings WHERE user_id = ANY($1::uuid[])", [ids]) {
            let id: String = try row.decode("id")
            do {
                zones[id] = try self.zones.zone(setting: try row.decode("time_zone", as: String.self))
            } catch {
                throw ExtractionError.invalidInput("\(error) (user \(id))")
            }
        }
        for id in ids where zones[id.postgresValue] == nil { zones[id.postgresValue] = self.zones.fallback }
        return zones
    }
}

/// The SQL of one write; keeps the keys it wrote so replace mode knows what is stale.
struct RowWriter {
    let db: PostgresConnection
    let conversationID: UUID
    let input: ConversationInput
    let provenance: ExtractionStore.Provenance
    let zones: [String: TimeZone]
    let now: Date
    var summary = ExtractionStore.WriteSummary()
    var written: [ExtractionFeature: [String]] = [:]

    private var conversation: String { conversationID.postgresValue }

    mutating func write(_ feature: ExtractionFeature, _ extraction: Extraction) async throws {
        guard let prompt = provenance.prompts[feature] else { return }
        let base: [any PostgresEncodable] = [provenance.runID, prompt.id, prompt.version, prompt.model]
        switch feature {
        case .calendarEvents:
            for item in extraction.events {
                let key = "event:\(conversation):\(item.mergeKey)"
                try await claim(Self.claimEventSQL, [key, item.sources, item.date])
                try await upsert(feature, key: key, sql: Self.eventSQL, binds: base + [
                    key, conversationID, item.sources.first, item.sources, item.title, item.date, item.time, item.endTime,
                    input.timeZone.identifier, item.location, item.description, item.category, item.confidence,
                    item.datePhrase, item.modelDate,
                ])
            }
        case .decisions:
            for item in extraction.decisions {
                let key = "decision:\(conversation):\(item.mergeKey)"
                try await claim(Self.claimDecisionSQL, [key, item.sources, item.deadline])
                try await upsert(feature, key: key, sql: Self.decisionSQL, binds: base + [
                    key, conversationID, item.sources.first, item.sources, item.decision, item.category, item.decidedBy,
                    item.deadline, item.datePhrase, item.modelDate,
                ])
            }
        case .priorityMessages:
            for item in extraction.priorities {
                let key = "priority:\(item.messageID)"
                try await upsert(feature, key: key, sql: Self.prioritySQL, binds: base + [
                    key, item.messageID, conversationID, item.priority, item.reason, item.actionRequired,
                ])
            }
        case .rsvps:
            for item in extraction.rsvps {
                let itemKey = "rsvp:\(conversation):\(item.mergeKey)"
                // Everyone but the person asking owes an answer; their status comes from who answered.
                for person in input.participants where person.id != item.requestedBy {
                    let answer = item.response(of: person.id)
                    let answeredAt = answer.flatMap { input.message($0.messageID)?.sentAt }
                    try await claim(Self.claimRSVPSQL, ["\(itemKey):\(person.id)", item.sources, person.id, item.eventDate])
                    try await upsert(feature, key: "\(itemKey):\(person.id)", sql: Self.rsvpSQL, binds: base + [
                        "\(itemKey):\(person.id)", itemKey, conversationID, item.sources.first, person.id, item.event,
                        item.requestedBy, item.deadline, item.eventDate, answer == nil ? "pending" : "responded",
                        answer?.response, answer?.messageID, answeredAt, item.datePhrase, item.modelDate,
                    ])
                }
            }
        case .deadlines:
            for item in extraction.deadlines {
                let itemKey = "deadline:\(conversation):\(item.mergeKey)"
                let announcer = item.sources.first.flatMap { input.message($0)?.senderID }
                // In a group the announcer (a teacher, a coach) is not the one who must act; in a 1:1 both are.
                let owners = input.participants.filter { !input.isGroup || $0.id != announcer }
                for person in owners {
                    let zone = zones[person.id] ?? input.timeZone
                    let key = "\(itemKey):\(person.id)"
                    try await claim(Self.claimDeadlineSQL, [key, item.sources, person.id, item.deadline])
                    try await upsert(feature, key: key, sql: Self.deadlineSQL, binds: base + [
                        key, itemKey, conversationID, item.sources.first, person.id, item.task, item.deadline, item.time,
                        zone.identifier, item.category, item.priority, item.details, item.datePhrase, item.modelDate,
                    ])
                    try await remind(person.id, of: item, deadlineKey: key, zone: zone, prompt: prompt)
                }
            }
        }
    }

    /// "Reminder: <task>" at 18:00 the evening before the deadline, in the user's zone, and only while that is still
    /// ahead. created_by is 'ai' (the app's word for reminders it did not write); origin 'extractor' is the service's.
    /// A reminder the PRD's Edge Function wrote for the same deadline (same user and title, that evening) is adopted.
    private mutating func remind(_ userID: String, of item: DeadlineItem, deadlineKey: String, zone: TimeZone, prompt: PromptRef) async throws {
        let rows = try await db.query(
            """
            SELECT id, (($1::date - 1) + $2::time) AT TIME ZONE $3 AS at FROM deadlines WHERE idempotency_key = $4
            """, [item.deadline, ExtractionStore.reminderTime, zone.identifier, deadlineKey])
        guard let row = rows.first else { return }
        let at: Date = try row.decode("at")
        guard at > now else { return }
        let key = "reminder:\(deadlineKey)"
        let title = ExtractionStore.reminderTitle(task: item.task)
        // The Edge Function wrote 18:00 in its own zone (UTC): anything on the evening before, give or take a day.
        try await claim(
            """
            UPDATE reminders SET idempotency_key = $1, item_key = $1
            WHERE id = (SELECT id FROM reminders
                        WHERE idempotency_key IS NULL AND user_id = $2::uuid AND created_by = 'ai' AND title = $3
                          AND messageai_utc(reminder_time) > $4::timestamptz - interval '1 day'
                          AND messageai_utc(reminder_time) < $4::timestamptz + interval '1 day'
                        ORDER BY created_at, id LIMIT 1)
              AND NOT EXISTS (SELECT 1 FROM reminders WHERE idempotency_key = $1)
            """, [key, userID, title, at])
        let result = try await db.query(
            """
            INSERT INTO reminders (user_id, title, reminder_time, priority, status, created_by, origin, idempotency_key, item_key,
                                   deadline_id, conversation_id, run_id, prompt_id, prompt_version, model)
            VALUES ($1, $2, $3, $4, 'pending', 'ai', 'extractor', $5, $5, $6, $7, $8, $9, $10, $11)
            ON CONFLICT (idempotency_key) DO UPDATE SET title = EXCLUDED.title, reminder_time = EXCLUDED.reminder_time,
                priority = EXCLUDED.priority, origin = EXCLUDED.origin, deadline_id = EXCLUDED.deadline_id,
                conversation_id = EXCLUDED.conversation_id, run_id = EXCLUDED.run_id, prompt_id = EXCLUDED.prompt_id,
                prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
            WHERE reminders.status = 'pending'
              AND (reminders.title, reminders.reminder_time, reminders.priority, reminders.deadline_id, reminders.prompt_id)
                  IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.reminder_time, EXCLUDED.priority, EXCLUDED.deadline_id, EXCLUDED.prompt_id)
            RETURNING (xmax = 0) AS inserted
            """,
            [userID, title, at, item.priority, key,
             try row.decode("id", as: UUID.self), conversationID, provenance.runID, prompt.id, prompt.version, prompt.model])
        if try result.first?.decode("inserted", as: Bool.self) == true { summary.remindersCreated += 1 }
    }

    /// Gives the app's row for this item (no idempotency key yet) the item's key, so the upsert that follows updates
    /// it instead of adding a second row. Does nothing when a row already has the key or the app has none.
    private func claim(_ sql: String, _ binds: [any PostgresEncodable]) async throws {
        try await db.query(sql, binds)
    }

    private mutating func upsert(_ feature: ExtractionFeature, key: String, sql: String, binds: [any PostgresEncodable]) async throws {
        written[feature, default: []].append(key)
        let result = try await db.query(sql, binds)
        guard let row = result.first else { return }  // unchanged: the WHERE clause skipped the update
        if try row.decode("inserted", as: Bool.self) {
            summary.inserted[feature.rawValue, default: 0] += 1
        } else {
            summary.updated[feature.rawValue, default: 0] += 1
        }
    }

    /// Removes this conversation's AI rows of a feature that this extraction did not produce, keeping rows a user acted on.
    mutating func removeStale(_ feature: ExtractionFeature) async throws {
        let keys = written[feature] ?? []
        let sql: String = switch feature {
        case .calendarEvents:
            "DELETE FROM calendar_events WHERE conversation_id = $1 AND confirmed IS NOT TRUE \(Self.serviceRowNotIn)"
        case .decisions: "DELETE FROM decisions WHERE conversation_id = $1 \(Self.serviceRowNotIn)"
        case .priorityMessages:
            "DELETE FROM priority_messages WHERE conversation_id = $1 AND dismissed IS NOT TRUE \(Self.serviceRowNotIn)"
        case .rsvps: "DELETE FROM rsvp_tracking WHERE conversation_id = $1 \(Self.serviceRowNotIn)"
        case .deadlines: "DELETE FROM deadlines WHERE conversation_id = $1 AND status = 'pending' \(Self.serviceRowNotIn)"
        }
        let removed = try await db.query(sql, [conversationID, keys]).affectedRows
        if removed > 0 { summary.removed[feature.rawValue, default: 0] += removed }
    }

    /// Only rows the service wrote (they have a key) and did not write this time; the app's rows stay.
    static let serviceRowNotIn = "AND idempotency_key IS NOT NULL AND idempotency_key <> ALL($2::text[])"

    // Claims of the app's rows (see `claim`): $1 the item's key, $2 its source message ids, then its identity.
    static let claimEventSQL = """
        UPDATE calendar_events SET idempotency_key = $1
        WHERE id = (SELECT id FROM calendar_events WHERE idempotency_key IS NULL AND message_id = ANY($2::uuid[]) AND date = $3::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM calendar_events WHERE idempotency_key = $1)
        """

    static let claimDecisionSQL = """
        UPDATE decisions SET idempotency_key = $1
        WHERE id = (SELECT id FROM decisions WHERE idempotency_key IS NULL AND message_id = ANY($2::uuid[])
                      AND deadline IS NOT DISTINCT FROM $3::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM decisions WHERE idempotency_key = $1)
        """

    /// The app's UNIQUE(message_id, user_id): its row for the request's first message is this item's whatever its
    /// date; otherwise one for another source message with the same event date.
    static let claimRSVPSQL = """
        UPDATE rsvp_tracking SET idempotency_key = $1
        WHERE id = (SELECT id FROM rsvp_tracking WHERE idempotency_key IS NULL AND user_id = $3::uuid AND message_id = ANY($2::uuid[])
                      AND (message_id = ($2::uuid[])[1] OR event_date = $4::date)
                    ORDER BY message_id = ($2::uuid[])[1] DESC, created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM rsvp_tracking WHERE idempotency_key = $1)
        """

    static let claimDeadlineSQL = """
        UPDATE deadlines SET idempotency_key = $1
        WHERE id = (SELECT id FROM deadlines WHERE idempotency_key IS NULL AND user_id = $3::uuid AND message_id = ANY($2::uuid[])
                      AND deadline = $4::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM deadlines WHERE idempotency_key = $1)
        """

    // Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model, then the row's own values from $5.

    static let eventSQL = """
        INSERT INTO calendar_events (run_id, prompt_id, prompt_version, model, idempotency_key, conversation_id, message_id,
            source_message_ids, title, date, time, end_time, starts_at, ends_at, time_zone, location, description, category,
            confidence, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid[], $9, $10::date, $11::time, $12::time,
            ($10::date + $11::time) AT TIME ZONE $13, ($10::date + $12::time) AT TIME ZONE $13, $13, $14, $15, $16, $17, $18, $19::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET source_message_ids = EXCLUDED.source_message_ids, title = EXCLUDED.title,
            conversation_id = EXCLUDED.conversation_id, message_id = COALESCE(calendar_events.message_id, EXCLUDED.message_id),
            time = COALESCE(calendar_events.time, EXCLUDED.time),
            starts_at = COALESCE(calendar_events.starts_at, (calendar_events.date + COALESCE(calendar_events.time, EXCLUDED.time)) AT TIME ZONE EXCLUDED.time_zone),
            end_time = EXCLUDED.end_time, ends_at = EXCLUDED.ends_at, time_zone = EXCLUDED.time_zone, location = EXCLUDED.location,
            description = EXCLUDED.description, category = EXCLUDED.category, confidence = EXCLUDED.confidence,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (calendar_events.source_message_ids, calendar_events.title, calendar_events.end_time, calendar_events.location,
               calendar_events.description, calendar_events.category, calendar_events.confidence, calendar_events.date_phrase,
               calendar_events.model_date, calendar_events.prompt_id, calendar_events.prompt_version, calendar_events.model)
            IS DISTINCT FROM (EXCLUDED.source_message_ids, EXCLUDED.title, EXCLUDED.end_time, EXCLUDED.location,
               EXCLUDED.description, EXCLUDED.category, EXCLUDED.confidence, EXCLUDED.date_phrase, EXCLUDED.model_date,
               EXCLUDED.prompt_id, EXCLUDED.prompt_version, EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """

    static let decisionSQL = """
        INSERT INTO decisions (run_id, prompt_id, prompt_version, model, idempotency_key, conversation_id, message_id,
            source_message_ids, decision_text, category, decided_by, deadline, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid[], $9, $10, $11::uuid, $12::date, $13, $14::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET source_message_ids = EXCLUDED.source_message_ids,
            conversation_id = EXCLUDED.conversation_id, category = EXCLUDED.category, decision_text = EXCLUDED.decision_text, decided_by = EXCLUDED.decided_by, deadline = EXCLUDED.deadline,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (decisions.source_message_ids, decisions.decision_text, decisions.decided_by, decisions.deadline,
               decisions.date_phrase, decisions.model_date, decisions.prompt_id, decisions.prompt_version, decisions.model)
            IS DISTINCT FROM (EXCLUDED.source_message_ids, EXCLUDED.decision_text, EXCLUDED.decided_by, EXCLUDED.deadline,
               EXCLUDED.date_phrase, EXCLUDED.model_date, EXCLUDED.prompt_id, EXCLUDED.prompt_version, EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """

    static let prioritySQL = """
        INSERT INTO priority_messages (run_id, prompt_id, prompt_version, model, idempotency_key, message_id, conversation_id,
            priority, reason, action_required)
        VALUES ($1, $2, $3, $4, $5, $6::uuid, $7, $8, $9, $10)
        ON CONFLICT (message_id) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key,
            conversation_id = EXCLUDED.conversation_id, priority = EXCLUDED.priority, reason = EXCLUDED.reason,
            action_required = EXCLUDED.action_required, run_id = EXCLUDED.run_id, prompt_id = EXCLUDED.prompt_id,
            prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (priority_messages.idempotency_key, priority_messages.conversation_id, priority_messages.priority,
               priority_messages.reason, priority_messages.action_required, priority_messages.prompt_id,
               priority_messages.prompt_version, priority_messages.model)
            IS DISTINCT FROM (EXCLUDED.idempotency_key, EXCLUDED.conversation_id, EXCLUDED.priority, EXCLUDED.reason,
               EXCLUDED.action_required, EXCLUDED.prompt_id, EXCLUDED.prompt_version, EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """

    static let rsvpSQL = """
        INSERT INTO rsvp_tracking (run_id, prompt_id, prompt_version, model, idempotency_key, item_key, conversation_id,
            message_id, user_id, event_name, requested_by, deadline, event_date, status, response, response_message_id,
            responded_at, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid, $9::uuid, $10, $11::uuid, $12::date, $13::date, $14, $15, $16::uuid,
            $17, $18, $19::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET event_name = EXCLUDED.event_name, requested_by = EXCLUDED.requested_by,
            item_key = EXCLUDED.item_key, conversation_id = EXCLUDED.conversation_id, event_date = EXCLUDED.event_date,
            deadline = EXCLUDED.deadline,
            status = CASE WHEN EXCLUDED.status = 'responded' THEN EXCLUDED.status ELSE rsvp_tracking.status END,
            response = COALESCE(EXCLUDED.response, rsvp_tracking.response),
            response_message_id = COALESCE(EXCLUDED.response_message_id, rsvp_tracking.response_message_id),
            responded_at = COALESCE(EXCLUDED.responded_at, rsvp_tracking.responded_at),
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (rsvp_tracking.event_name, rsvp_tracking.requested_by, rsvp_tracking.deadline, rsvp_tracking.date_phrase,
               rsvp_tracking.model_date, rsvp_tracking.prompt_id, rsvp_tracking.prompt_version, rsvp_tracking.model)
            IS DISTINCT FROM (EXCLUDED.event_name, EXCLUDED.requested_by, EXCLUDED.deadline, EXCLUDED.date_phrase,
               EXCLUDED.model_date, EXCLUDED.prompt_id, EXCLUDED.prompt_version, EXCLUDED.model)
           OR (EXCLUDED.status = 'responded' AND (rsvp_tracking.status, rsvp_tracking.response, rsvp_tracking.response_message_id)
               IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.response, EXCLUDED.response_message_id))
        RETURNING (xmax = 0) AS inserted
        """

    static let deadlineSQL = """
        INSERT INTO deadlines (run_id, prompt_id, prompt_version, model, idempotency_key, item_key, conversation_id, message_id,
            user_id, task, deadline, deadline_time, due_at, category, priority, details, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid, $9::uuid, $10, $11::date, $12::time,
            ($11::date + COALESCE($12::time, '23:59'::time)) AT TIME ZONE $13, $14, $15, $16, $17, $18::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET task = EXCLUDED.task, deadline_time = EXCLUDED.deadline_time,
            item_key = EXCLUDED.item_key, conversation_id = EXCLUDED.conversation_id,
            due_at = EXCLUDED.due_at, category = EXCLUDED.category, priority = EXCLUDED.priority, details = EXCLUDED.details,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (deadlines.task, deadlines.deadline_time, deadlines.due_at, deadlines.category, deadlines.priority,
               deadlines.details, deadlines.date_phrase, deadlines.model_date, deadlines.prompt_id, deadlines.prompt_version,
               deadlines.model)
            IS DISTINCT FROM (EXCLUDED.task, EXCLUDED.deadline_time, EXCLUDED.due_at, EXCLUDED.category, EXCLUDED.priority,
               EXCLUDED.details, EXCLUDED.date_phrase, EXCLUDED.model_date, EXCLUDED.prompt_id, EXCLUDED.prompt_version,
               EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """
}
