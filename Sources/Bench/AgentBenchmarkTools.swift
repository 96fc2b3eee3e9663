package import AgentRuntime
import Foundation
import Core

/// The five in-memory tools of the agent benchmark, with the real families' names and argument shapes (plus a
/// round-numbered `limit` where the real tool takes none, so scripted calls never repeat), each returning its
/// fixed JSON from `AgentBenchmarkScript.tools`: the loop is measured, not the database.
package enum AgentBenchmarkTools {
    package static func all() throws -> [AnyAgentTool] {
        try AgentBenchmarkScript.tools.map { scripted in
            try AnyAgentTool(FixedResultTool(
                name: scripted.name, parametersSchema: schemas[scripted.name] ?? [:], result: try JSONValue.parse(scripted.result)))
        }
    }

    static let schemas: [String: JSONValue] = [
        "get_recent_messages": object([
            ("conversation_id", ["type": ["string", "null"], "description": "Id of one conversation, or null for all."]),
            ("days", ["type": "integer", "description": "How many days back to read."]),
            ("limit", ["type": "integer", "description": "Maximum number of messages."]),
        ]),
        "get_upcoming_events": object([("days", ["type": "integer", "description": "How many days ahead to look."])]),
        "get_pending_rsvps": object([("limit", ["type": "integer", "description": "Maximum number of RSVPs."])]),
        "get_upcoming_deadlines": object([("days", ["type": "integer", "description": "How many days ahead to look."])]),
        "list_reminders": object([
            ("include_done", ["type": "boolean", "description": "true to include completed and dismissed reminders."]),
            ("limit", ["type": "integer", "description": "Maximum number of reminders."]),
        ]),
    ]

    /// A strict-mode object schema: every property required, nothing else allowed.
    private static func object(_ properties: [(String, JSONValue)]) -> JSONValue {
        ["type": "object", "properties": .object(JSONObject(properties)),
         "required": .array(properties.map { .string($0.0) }), "additionalProperties": false]
    }
}

/// A tool that accepts any schema-valid arguments and returns the same result every time.
struct FixedResultTool: AgentTool {
    typealias Arguments = JSONValue

    let name: String
    let parametersSchema: JSONValue
    let result: JSONValue
    var description: String { "Benchmark stand-in for the \(name) tool family." }

    func run(_ arguments: JSONValue) async throws -> JSONValue { result }
}
