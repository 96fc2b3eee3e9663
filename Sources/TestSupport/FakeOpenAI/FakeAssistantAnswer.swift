import AgentRuntime
package import Core
import Foundation

/// What a fake proactive assistant reads and answers: the answer's schema it was told, and an answer in that schema
/// that raises every finding the request gave it, ranked in the given order. The benchmark's in-process model and the
/// tests' schema-told model answer with it.
package enum FakeAssistantAnswer {
    /// The answer that raises every finding in `user` (the findings JSON array of `prompts/assistant.yaml`'s user
    /// message), each with a line of explanation and its rank.
    package static func raisingEvery(findingsIn user: String) -> JSONValue {
        var lists: [String: [JSONValue]] = ["conflicts": [], "pending_rsvps": [], "near_deadlines": [], "priority_messages": []]
        if let start = user.firstIndex(of: "["), let end = user.lastIndex(of: "]"),
           let findings = try? JSONValue.parse(Data(user[start...end].utf8)) {
            for (index, finding) in (findings.arrayValue ?? []).enumerated() {
                let ids = (finding["cites"]?.arrayValue ?? []).compactMap { $0["id"] }
                let text = JSONValue.string("This matters: " + (finding["suggestion"]?.stringValue ?? ""))
                let rank = JSONValue.integer(Int64(index + 1))
                switch finding["kind"]?.stringValue {
                case "conflict": lists["conflicts"]?.append(["description": text, "event_ids": .array(ids), "rank": rank])
                case "rsvp": lists["pending_rsvps"]?.append(["rsvp_id": ids.first ?? "", "note": text, "rank": rank])
                case "deadline": lists["near_deadlines"]?.append(["deadline_id": ids.first ?? "", "note": text, "rank": rank])
                case "priority": lists["priority_messages"]?.append(["message_id": ids.first ?? "", "note": text, "rank": rank])
                default: break
                }
            }
        }
        var answer: JSONObject = ["summary": "Here is what needs you this week."]
        for key in ["conflicts", "pending_rsvps", "near_deadlines", "priority_messages"] { answer[key] = .array(lists[key] ?? []) }
        answer["suggested_actions"] = ["Answer the open invitations"]
        return .object(answer)
    }

    /// The schema a chat request tells the model its answer must have: its `response_format`'s, else the one written
    /// at the end of its system prompt (`SchemaInPrompt`); nil when it tells none.
    package static func toldSchema(_ request: JSONValue) -> JSONValue? {
        if let schema = request["response_format"]?["json_schema"]?["schema"] ?? request["response_format"]?["schema"] { return schema }
        guard let system = request["messages"]?[0]?["content"]?.stringValue,
              let lead = system.range(of: SchemaInPrompt.lead, options: .backwards) else { return nil }
        return try? JSONValue.parse(Data(system[lead.upperBound...].utf8))
    }

    /// The fields of a schema, top level and one level into its lists' items: what a model must know to write the
    /// answer (`"conflicts.event_ids"`, `"summary"`). Caps and descriptions are left out: the wire schema has fewer.
    package static func fields(of schema: JSONValue) -> Set<String> {
        var fields = Set<String>()
        for (name, property) in schema["properties"]?.objectValue ?? [:] {
            fields.insert(name)
            for (inner, _) in property["items"]?["properties"]?.objectValue ?? [:] { fields.insert("\(name).\(inner)") }
        }
        return fields
    }
}
