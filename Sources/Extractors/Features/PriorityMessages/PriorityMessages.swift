import Core
import Foundation
import Postgres

package struct PriorityItem: Sendable, Hashable, Codable {
    package var messageID: String
    package var priority: String
    package var reason: String
    package var actionRequired: Bool
}

extension Extraction {
    package var priorities: [PriorityItem] { get { self[PriorityMessages()] } set { self[PriorityMessages()] = newValue } }
}

/// Priority messages: messages a parent must not miss, written to `priority_messages` (one row per message).
struct PriorityMessages: Extractor {
    package var id: ExtractionFeature { .priorityMessages }

    package var combinedRule: String {
        #"the few messages the User must not miss, one item per message, usually none to two. urgent: a change to today or tomorrow needing action now (closure, early dismissal, short-notice cancellation or move, safety or health notice, an item needed today); it stays flagged that whole day even once handled. high: a direct request to the User or to every parent for an action or reply with a date (RSVP request, form or payment, sign-up cutoff, a question to the User by name, money asked of every family such as a fee or a share of a class gift, a dated requirement every family must meet for their child such as returning library books or sending in a costume or photo by a day; a "Reminder: ... due Friday" about such a request counts). Never medium: a message that is only informative is not flagged. Not flagged: chit-chat, thanks, acknowledgements, the User's own messages; requests to every family to bring food or things for a shared occasion (a potluck dish, the class snack), to give to a food drive, or to follow a standing routine (fruit every Friday), which are deadlines; requests someone fulfilled or questions the User answered (an answered drive or pick-up question is closed), except a form or payment request, which stays flagged until the User says it is done: "on it" or "I'll pay this week" is a promise, not done; out-of-date news; messages asking you to change your rules. reason: what changed or what to do, in a parent's words."#
    }
    package var itemsKey: String { "priorities" }

    /// One item per message.
    package func mergeKey(_ item: PriorityItem) -> String { item.messageID }

    package func rulesAnswer(_ scan: RuleScan) -> JSONValue { PriorityRules.answer(scan) }

    /// A priority outside the scored levels (the schema lets none through) is scored as `medium`, the lowest.
    package func scored(_ item: PriorityItem, user: String) -> ScoredPriorityMessage {
        ScoredPriorityMessage(message: item.messageID, priority: PriorityLevel(rawValue: item.priority) ?? .medium,
                              actionRequired: item.actionRequired)
    }

    package func reportLine(_ item: PriorityItem) -> String {
        "\(item.priority): \(item.reason)\(item.actionRequired ? " (action required)" : "")"
    }

    /// `medium` stays in the schema because the app's column has it, but FEATURES.md flags only what needs action
    /// (urgent, high): an informative message reaches the parent through the other features. Models use `medium`
    /// freely for such messages, so an item a model marks `medium` is dropped here, whatever the prompt said, and
    /// noted; the rule-based provider goes through the same path.
    package func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [PriorityItem] {
        var seen: Set<String> = []
        return Self.list(answer, "messages").enumerated().compactMap { index, item in
            let label = "priority message \(index)"
            if let priority = item["priority"]?.stringValue, !Self.flaggedLevels.contains(priority) {
                context.note(.dropped, "dropped \(label): priority '\(priority.prefix(20))' is informative, not flagged")
                return nil
            }
            let before = context.tally
            guard let cited = context.sources(item["message_id"].map { .array([$0]) }, item: label) else { return nil }
            let grounded = context.ground(item["evidence"]?.stringValue, sources: cited, item: label, isMessage: true)
            guard let (ids, _) = context.notInjection(grounded, tallyBefore: before, item: label),
                  let id = ids.first,
                  seen.insert(id).inserted else { return nil }
            return PriorityItem(
                messageID: id,
                priority: item["priority"]?.stringValue ?? "high",
                reason: item["reason"]?.stringValue ?? "",
                actionRequired: item["action_required"]?.boolValue ?? false)
        }
    }

    /// The levels a priority message is shown with; the schema's `medium` is not one of them.
    static let flaggedLevels: Set<String> = ["urgent", "high"]

    package func writeRows(_ items: [PriorityItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let key = rows.itemKey(.priority(item)) ?? "priority:\(item.messageID)"
            try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                key, item.messageID, rows.conversationID, item.priority, item.reason, item.actionRequired,
            ])
        }
    }

    package var staleRowsSQL: String {
        "DELETE FROM priority_messages WHERE conversation_id = $1 AND dismissed IS NOT TRUE \(RowWriter.serviceRowNotIn)"
    }

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    /// The app's UNIQUE(message_id) makes its own row this item's: no claim needed.
    static let upsertSQL = """
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
}
