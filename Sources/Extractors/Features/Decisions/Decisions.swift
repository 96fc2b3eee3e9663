package import Core
import Foundation
import Postgres

package struct DecisionItem: Sendable, Hashable, Codable {
    package var decision: String
    package var category: DecisionCategory
    /// A participant id, when the model named one that exists.
    package var decidedBy: String?
    package var deadline: LocalDate?
    package var datePhrase: String?
    package var modelDate: LocalDate?
    package var sources: [String]
    /// Set for a second, distinct decision of one message and category (see `ItemIdentity`).
    package var variant: String? = nil
}

/// The identity of a decision: its first (earliest) source message and its category (and its `variant`).
extension DecisionItem {
    var baseKey: String { "\(sources.first ?? ""):\(category.rawValue)" }
    package var mergeKey: String { variant.map { "\(baseKey)~\($0)" } ?? baseKey }
}

extension Extraction {
    package var decisions: [DecisionItem] { get { self[Decisions()] } set { self[Decisions()] = newValue } }
}

/// Decisions: what the group settled, written to `decisions`.
struct Decisions: Extractor {
    package var id: ExtractionFeature { .decisions }

    package var combinedRule: String {
        #"what the group settled, or a commitment a participant made to the group, that others rely on: who drives or takes a child, who brings or buys what, who pays how much, the plan once agreed or changed by agreement. A question or proposal counts only once someone accepts it ("Can you take her?" alone is not one; "Yes, I'll take her" is); a firm commitment made unasked ("we'll bring potato salad") is one. One item per settled point, as finally settled, saying who does what. Not open questions, unaccepted proposals, announcements by a school, coach or organiser, personal asides nobody relies on, or the date and time of an agreed plan (that is a calendar event). decided_by: the sender alias who committed or accepted, null for the group. Cite the question and the answer that settled it."#
    }

    package func mergeKey(_ item: DecisionItem) -> String { item.mergeKey }

    package func merge(_ item: DecisionItem, into items: inout [DecisionItem]) {
        ItemIdentity.merge(item, into: &items, base: \.baseKey, text: \.decision, sources: \.sources, variant: \.variant)
    }

    package func rulesAnswer(_ scan: RuleScan) -> JSONValue { DecisionRules.answer(scan) }

    package func scored(_ item: DecisionItem, user: String) -> ScoredDecision {
        ScoredDecision(decision: item.decision, category: item.category, source: item.sources)
    }

    package func reportLine(_ item: DecisionItem) -> String { "\(item.decision) [\(item.category.rawValue)]" }

    package func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [DecisionItem] {
        Self.list(answer, "decisions").enumerated().compactMap { index, item in
            let label = "decision \(index) '\(item["decision"]?.stringValue?.prefix(40) ?? "")'"
            guard let (sources, holder) = context.grounded(item, label: label),
                  let modelDeadline = context.date(item["deadline"], field: "deadline", item: label),
                  context.backed(item["decision"]?.nonEmptyString, field: "decision", sources: sources, modelCited: context.modelCited(item),
                                 date: modelDeadline, time: nil, item: label)
            else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            var deadline = modelDeadline
            var modelDate: LocalDate?
            if let given = modelDeadline {
                let resolved = context.resolve(phrase: phrase, modelDate: given, sources: sources, evidenceMessage: holder,
                                               item: label, deadline: true)
                if context.dropsOutsideWindow(resolved, phrase: phrase, label: label) { return nil }
                deadline = resolved.date
                modelDate = resolved.modelDate
            }
            return DecisionItem(
                decision: item["decision"]?.nonEmptyString ?? "",
                category: item["category"]?.stringValue.flatMap(DecisionCategory.init(rawValue:)) ?? .other,
                decidedBy: context.participant(item["decided_by"]),
                deadline: deadline, datePhrase: phrase, modelDate: modelDate, sources: sources)
        }
    }

    package func writeRows(_ items: [DecisionItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let key = rows.itemKey(.decision(item)) ?? "decision:\(rows.conversation):\(item.mergeKey)"
            try await rows.claim(Self.claimSQL, [key, item.sources, item.deadline])
            try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                key, rows.conversationID, item.sources.first, item.sources, item.decision, item.category.rawValue, item.decidedBy,
                item.deadline, item.datePhrase, item.modelDate,
            ])
        }
    }

    package var staleRowsSQL: String { "DELETE FROM decisions WHERE conversation_id = $1 \(RowWriter.serviceRowNotIn)" }

    /// Claims the app's row (see `RowWriter.claim`): $1 the item's key, $2 its source message ids, $3 its deadline.
    static let claimSQL = """
        UPDATE decisions SET idempotency_key = $1
        WHERE id = (SELECT id FROM decisions WHERE idempotency_key IS NULL AND message_id = ANY($2::uuid[])
                      AND deadline IS NOT DISTINCT FROM $3::date
                    ORDER BY created_at, id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM decisions WHERE idempotency_key = $1)
        """

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    static let upsertSQL = """
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
}
