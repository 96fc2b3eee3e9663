import Chrono
import Foundation
import JSONKit
import Postgres

public struct DeadlineItem: Sendable, Hashable, Codable {
    public var task: String
    public var deadline: LocalDate
    public var time: LocalTime?
    public var category: DeadlineCategory
    public var priority: String
    public var details: String?
    public var datePhrase: String?
    public var modelDate: LocalDate?
    public var sources: [String]
}

/// The identity of a deadline: its first (earliest) source message and its date.
extension DeadlineItem { public var mergeKey: String { "\(sources.first ?? ""):\(deadline.iso)" } }

extension Extraction {
    public var deadlines: [DeadlineItem] { get { self[Deadlines()] } set { self[Deadlines()] = newValue } }
}

/// Deadlines: tasks due by a date, written to `deadlines` for each person who must act, each with a reminder the
/// evening before (`RowWriter.remind`).
public struct Deadlines: ParentFeature {
    public var id: ExtractionFeature { .deadlines }

    public func mergeKey(_ item: DeadlineItem) -> String { item.mergeKey }

    public func rulesAnswer(_ scan: RuleScan) -> JSONValue { DeadlineRules.answer(scan) }

    public func reportLine(_ item: DeadlineItem) -> String {
        "\(item.deadline.iso)\(item.time.map { " " + $0.iso } ?? "") \(item.task) [\(item.category.rawValue), \(item.priority)]"
    }

    public func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [DeadlineItem] {
        Self.list(answer, "deadlines").enumerated().compactMap { index, item in
            let label = "deadline \(index) '\(item["task"]?.stringValue?.prefix(40) ?? "")'"
            guard let grounded = context.grounded(item, label: label),
                  let (resolved, phrase) = context.requiredDate(item, field: "deadline", grounded: grounded, label: label, deadline: true)
            else { return nil }
            return DeadlineItem(
                task: item["task"]?.nonEmptyString ?? "Task",
                deadline: resolved.date,
                time: resolved.time ?? item["time"]?.stringValue.flatMap { LocalTime(iso: $0) },
                category: item["category"]?.stringValue.flatMap(DeadlineCategory.init(rawValue:)) ?? .other,
                priority: item["priority"]?.stringValue ?? "medium",
                details: item["details"]?.nonEmptyString,
                datePhrase: phrase, modelDate: resolved.modelDate, sources: grounded.sources)
        }
    }

    public func writeRows(_ items: [DeadlineItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let itemKey = "deadline:\(rows.conversation):\(item.mergeKey)"
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
                try await rows.remind(person.id, of: item, deadlineKey: key, zone: zone, prompt: prompt)
            }
        }
    }

    public var staleRowsSQL: String {
        "DELETE FROM deadlines WHERE conversation_id = $1 AND status = 'pending' \(RowWriter.serviceRowNotIn)"
    }

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
