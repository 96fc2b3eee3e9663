import Chrono
import Evals
import Foundation
import JSONKit
import Postgres

public struct PriorityItem: Sendable, Hashable, Codable {
    public var messageID: String
    public var priority: String
    public var reason: String
    public var actionRequired: Bool
}

extension Extraction {
    public var priorities: [PriorityItem] { get { self[PriorityMessages()] } set { self[PriorityMessages()] = newValue } }
}

/// Priority messages: messages a parent must not miss, written to `priority_messages` (one row per message).
public struct PriorityMessages: ParentFeature {
    public var id: ExtractionFeature { .priorityMessages }

    public var combinedRule: String {
        #"what the user must not miss, one item per message, never the user's own. urgent: closures, emergencies, safety, same-day changes or pick-up, requests expiring within a day. high: RSVPs or forms with a deadline, direct questions to the user, conflicts, key school news. medium: useful reminders, upcoming events. Not chat, thanks, resolved or stale news."#
    }
    public var itemsKey: String { "priorities" }

    /// One item per message.
    public func mergeKey(_ item: PriorityItem) -> String { item.messageID }

    public func rulesAnswer(_ scan: RuleScan) -> JSONValue { PriorityRules.answer(scan) }

    /// A priority outside the scored levels (the schema lets none through) is scored as `medium`, the lowest.
    public func scored(_ item: PriorityItem, user: String) -> ScoredPriorityMessage {
        ScoredPriorityMessage(message: item.messageID, priority: PriorityLevel(rawValue: item.priority) ?? .medium,
                              actionRequired: item.actionRequired)
    }

    public func reportLine(_ item: PriorityItem) -> String {
        "\(item.priority): \(item.reason)\(item.actionRequired ? " (action required)" : "")"
    }

    public func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [PriorityItem] {
        var seen: Set<String> = []
        return Self.list(answer, "messages").enumerated().compactMap { index, item in
            let label = "priority message \(index)"
            let before = context.tally
            guard let cited = context.sources(item["message_id"].map { .array([$0]) }, item: label) else { return nil }
            let grounded = context.ground(item["evidence"]?.stringValue, sources: cited, item: label, isMessage: true)
            guard let (ids, _) = context.notInjection(grounded, tallyBefore: before, item: label),
                  let id = ids.first,
                  seen.insert(id).inserted else { return nil }
            return PriorityItem(
                messageID: id,
                priority: item["priority"]?.stringValue ?? "medium",
                reason: item["reason"]?.stringValue ?? "",
                actionRequired: item["action_required"]?.boolValue ?? false)
        }
    }

    public func writeRows(_ items: [PriorityItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let key = "priority:\(item.messageID)"
            try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                key, item.messageID, rows.conversationID, item.priority, item.reason, item.actionRequired,
            ])
        }
    }

    public var staleRowsSQL: String {
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
