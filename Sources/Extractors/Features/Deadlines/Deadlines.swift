package import Core
import Foundation
import Postgres

package struct DeadlineItem: Sendable, Hashable, Codable {
    package var task: String
    package var deadline: LocalDate
    package var time: LocalTime?
    package var category: DeadlineCategory
    package var priority: String
    package var details: String?
    package var datePhrase: String?
    package var modelDate: LocalDate?
    package var sources: [String]
    /// Set for a second, distinct deadline of one message and date (see `ItemIdentity`).
    package var variant: String? = nil
}

/// The identity of a deadline: its first (earliest) source message and its date (and its `variant`).
extension DeadlineItem {
    var baseKey: String { "\(sources.first ?? ""):\(deadline.iso)" }
    package var mergeKey: String { variant.map { "\(baseKey)~\($0)" } ?? baseKey }
}

extension Extraction {
    package var deadlines: [DeadlineItem] { get { self[Deadlines()] } set { self[Deadlines()] = newValue } }
}

/// Deadlines: tasks due by a date, written to `deadlines` for each person who must act, each with a reminder the
/// evening before (`remind`).
package struct Deadlines: Extractor {
    package var id: ExtractionFeature { .deadlines }

    package var combinedRule: String {
        #"what the User's family must do or deliver by a date: forms and slips, payments and fees, sign-ups and registrations, a dated reply asked of the User that is not an invitation's (allergies by tonight), items the family is asked to send or bring on a given day (a recurring one once, on its first date), an item the User was asked to bring and agreed to, every task of a forwarded newsletter that applies to the User's family. A task the User says she is doing ("on it") is not done yet. One item per task (a slip and its fee together are one). Not an invitation's reply-by date (that is the RSVP's), tasks of other families only, past or already-met dates, undated tasks, dress codes, or events themselves. priority by days left from now: urgent 1, high 3, medium 14, low later. details: amount, form or place, or null."#
    }

    package func mergeKey(_ item: DeadlineItem) -> String { item.mergeKey }

    package func merge(_ item: DeadlineItem, into items: inout [DeadlineItem]) {
        ItemIdentity.merge(item, into: &items, base: \.baseKey, text: \.task, sources: \.sources, variant: \.variant)
    }

    package func rulesAnswer(_ scan: RuleScan) -> JSONValue { DeadlineRules.answer(scan) }

    package func scored(_ item: DeadlineItem, user: String) -> ScoredDeadline {
        ScoredDeadline(task: item.task, deadline: item.deadline, category: item.category, source: item.sources)
    }

    package func reportLine(_ item: DeadlineItem) -> String {
        "\(item.deadline.iso)\(item.time.map { " " + $0.iso } ?? "") \(item.task) [\(item.category.rawValue), \(item.priority)]"
    }

    package func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [DeadlineItem] {
        Self.list(answer, "deadlines").enumerated().compactMap { index, item in
            let label = "deadline \(index) '\(item["task"]?.stringValue?.prefix(40) ?? "")'"
            guard let grounded = context.grounded(item, label: label),
                  let (resolved, phrase) = context.requiredDate(item, field: "deadline", grounded: grounded, label: label, deadline: true)
            else { return nil }
            let time = resolved.time ?? item["time"]?.stringValue.flatMap { LocalTime(iso: $0) }
            guard context.backed(item["task"]?.nonEmptyString, field: "task", sources: grounded.sources, modelCited: context.modelCited(item),
                                 date: resolved.date,
                                 time: time, item: label) else { return nil }
            return DeadlineItem(
                task: item["task"]?.nonEmptyString ?? "Task",
                deadline: resolved.date,
                time: context.backedTime(time, field: "time", sources: grounded.sources, item: label),
                category: item["category"]?.stringValue.flatMap(DeadlineCategory.init(rawValue:)) ?? .other,
                priority: item["priority"]?.stringValue ?? "medium",
                details: item["details"]?.nonEmptyString,
                datePhrase: phrase, modelDate: resolved.modelDate, sources: grounded.sources)
        }
    }

    package func writeRows(_ items: [DeadlineItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let itemKey = rows.itemKey(.deadline(item)) ?? "deadline:\(rows.conversation):\(item.mergeKey)"
            let met = rows.metFor(.deadline(item))
            let announcer = item.sources.first.flatMap { rows.input.message($0)?.senderID }
            // In a group the announcer (a teacher, a coach) is not the one who must act; in a 1:1 both are.
            let owners = rows.input.participants.filter { !rows.input.isGroup || $0.id != announcer }
            for person in owners {
                let zone = rows.zones[person.id] ?? rows.input.timeZone
                let key = "\(itemKey):\(person.id)"
                try await rows.claim(Self.claimSQL, [key, item.sources, person.id, item.deadline])
                try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                    key, itemKey, rows.conversationID, item.sources.first, person.id, item.task, item.deadline, item.time,
                    zone.identifier, item.category.rawValue, item.priority, item.details, item.datePhrase, item.modelDate,
                ])
                // Met for her (the chat says she handed it in, or she completed it in the app): her row completed, her
                // reminder (the app's adopted first) cancelled; otherwise due again if only the chat had met it, and reminded.
                if !met.contains(person.id) { try await rows.db.query(Self.reopenSQL, [key]) }
                try await Self.remind(person.id, of: item, deadlineKey: key, zone: zone, prompt: prompt, rows: &rows)
                if met.contains(person.id) { try await rows.db.query(Self.metSQL, [key, rows.now]) }
            }
        }
    }

    package var staleRowsSQL: String {
        "DELETE FROM deadlines WHERE conversation_id = $1 AND status = 'pending' \(RowWriter.serviceRowNotIn)"
    }

    /// Her row of a deadline the chat met for her: completed with reason `met` (what she did in the app stays), and its
    /// pending reminder cancelled. $1 the row's key, $2 now.
    static let metSQL = """
        WITH done AS (
            UPDATE deadlines SET status = 'completed', completed_at = COALESCE(completed_at, $2::timestamptz AT TIME ZONE 'UTC'),
                closed_at = $2, closed_reason = 'met', updated_at = now()
            WHERE idempotency_key = $1 AND status = 'pending' RETURNING id)
        UPDATE reminders SET status = 'cancelled', updated_at = now()
        WHERE status = 'pending' AND (idempotency_key = 'reminder:' || $1 OR deadline_id IN (SELECT id FROM done))
        """

    /// Her row due again after the chat took back that she met it (a `reopened` verdict); a row she completed in the
    /// app (no reason `met`) stays completed. $1 the row's key.
    static let reopenSQL = """
        WITH due AS (
            UPDATE deadlines SET status = 'pending', completed_at = NULL, closed_at = NULL, closed_reason = NULL, updated_at = now()
            WHERE idempotency_key = $1 AND status = 'completed' AND closed_reason = 'met' RETURNING id)
        UPDATE reminders SET status = 'pending', updated_at = now()
        WHERE status = 'cancelled' AND deadline_id IN (SELECT id FROM due)
        """

    /// Claims the app's row (see `RowWriter.claim`): $1 the row's key, $2 the source message ids, $3 the user, $4 the date.
    static let claimSQL = """
        UPDATE deadlines SET idempotency_key = $1
        WHERE id = (SELECT id FROM deadlines WHERE idempotency_key IS NULL AND user_id = $3::uuid AND message_id = ANY($2::uuid[])
                      AND deadline = $4::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM deadlines WHERE idempotency_key = $1)
        """

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    static let upsertSQL = """
        INSERT INTO deadlines (run_id, prompt_id, prompt_version, model, idempotency_key, item_key, conversation_id, message_id,
            user_id, task, deadline, deadline_time, due_at, category, priority, details, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid, $9::uuid, $10, $11::date, $12::time,
            ($11::date + COALESCE($12::time, '23:59'::time)) AT TIME ZONE $13, $14, $15, $16, $17, $18::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET task = EXCLUDED.task, deadline = EXCLUDED.deadline,
            deadline_time = EXCLUDED.deadline_time,
            item_key = EXCLUDED.item_key, conversation_id = EXCLUDED.conversation_id,
            due_at = EXCLUDED.due_at, category = EXCLUDED.category, priority = EXCLUDED.priority, details = EXCLUDED.details,
            date_phrase = EXCLUDED.date_phrase, model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id,
            prompt_id = EXCLUDED.prompt_id, prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (deadlines.task, deadlines.deadline, deadlines.deadline_time, deadlines.due_at, deadlines.category, deadlines.priority,
               deadlines.details, deadlines.date_phrase, deadlines.model_date, deadlines.prompt_id, deadlines.prompt_version,
               deadlines.model)
            IS DISTINCT FROM (EXCLUDED.task, EXCLUDED.deadline, EXCLUDED.deadline_time, EXCLUDED.due_at, EXCLUDED.category, EXCLUDED.priority,
               EXCLUDED.details, EXCLUDED.date_phrase, EXCLUDED.model_date, EXCLUDED.prompt_id, EXCLUDED.prompt_version,
               EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """

    /// "Reminder: <task>" at 18:00 the evening before the deadline, in the user's zone, while that is still ahead; once
    /// it has passed, at the next sensible time before the due time (`reminderInstant`), unless the deadline already has
    /// its reminder. "Now" is the run's clock, the one every other date of the run is read against (a test's fixed
    /// clock included). created_by is 'ai' (the app's word for reminders it did not write); origin 'extractor' is
    /// the service's. A reminder the PRD's Edge Function wrote for the same deadline (same user and title, that
    /// evening) is adopted.
    static func remind(_ userID: String, of item: DeadlineItem, deadlineKey: String, zone: TimeZone, prompt: PromptRef,
                       rows: inout RowWriter) async throws {
        let key = "reminder:\(deadlineKey)"
        let found = try await rows.db.query(reminderAtSQL, [item.deadline, ExtractionStore.reminderTime, zone.identifier, deadlineKey, key])
        guard let row = found.first else { return }
        let evening: Date = try row.decode("at")
        let now = rows.now
        if evening <= now, try row.decode("reminded", as: Bool.self) { return }
        guard let at = reminderInstant(evening: evening, due: try row.decode("due_at", as: Date.self), now: now, zone: zone)
        else { return }
        let title = ExtractionStore.reminderTitle(task: item.task)
        try await rows.claim(reminderClaimSQL, [key, userID, title, at])
        let result = try await rows.db.query(reminderUpsertSQL, [
            userID, title, at, item.priority, key, try row.decode("id", as: UUID.self), rows.conversationID,
            rows.provenance.runID, prompt.id, prompt.version, prompt.model,
        ])
        if try result.first?.decode("inserted", as: Bool.self) == true { rows.summary.remindersCreated += 1 }
    }

    /// When a deadline due at `due` is reminded: `evening` (18:00 the day before) while it is ahead of `now`; once it has
    /// passed, the next quarter hour at least five minutes ahead, moved to 07:00 when that falls in the night (21:00 to
    /// 07:00 local) and the morning still leaves an hour before the due time; never at or after the due time, and
    /// nil once that has passed.
    static func reminderInstant(evening: Date, due: Date, now: Date, zone: TimeZone) -> Date? {
        if evening > now { return evening }
        guard due > now.addingTimeInterval(60) else { return nil }
        let quarter = 15.0 * 60
        var next = (now.timeIntervalSince1970 / quarter).rounded(.up) * quarter
        if next - now.timeIntervalSince1970 < 5 * 60 { next += quarter }
        var at = Date(timeIntervalSince1970: next)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let hour = calendar.component(.hour, from: at)
        if hour >= 21 || hour < 7, let day = hour >= 21 ? calendar.date(byAdding: .day, value: 1, to: at) : at,
           let morning = calendar.date(bySettingHour: 7, minute: 0, second: 0, of: day), morning.addingTimeInterval(3600) <= due {
            at = morning
        }
        return at < due ? at : now.addingTimeInterval(60)
    }

    /// The deadline row's id, its evening-before reminder instant, its due instant and whether
    /// its reminder exists: $1 the date, $2 the reminder's local time, $3 the zone, $4 the row's key, $5 the reminder's key.
    static let reminderAtSQL = """
        SELECT id, (($1::date - 1) + $2::time) AT TIME ZONE $3 AS at, due_at,
               EXISTS (SELECT 1 FROM reminders WHERE idempotency_key = $5) AS reminded
        FROM deadlines WHERE idempotency_key = $4
        """

    /// Claims the Edge Function's reminder: $1 the key, $2 the user, $3 the title, $4 the instant. It wrote 18:00 in
    /// its own zone (UTC): anything on the evening before, give or take a day.
    static let reminderClaimSQL = """
        UPDATE reminders SET idempotency_key = $1, item_key = $1
        WHERE id = (SELECT id FROM reminders
                    WHERE idempotency_key IS NULL AND user_id = $2::uuid AND created_by = 'ai' AND title = $3
                      AND messageai_utc(reminder_time) > $4::timestamptz - interval '1 day'
                      AND messageai_utc(reminder_time) < $4::timestamptz + interval '1 day'
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM reminders WHERE idempotency_key = $1)
        """

    /// Binds: $1 user, $2 title, $3 instant, $4 priority, $5 key, $6 deadline id, $7 conversation, then run_id, prompt_id,
    /// prompt_version and model.
    static let reminderUpsertSQL = """
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
        """
}
