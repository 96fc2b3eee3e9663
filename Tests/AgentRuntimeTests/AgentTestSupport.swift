import AgentRuntime
import Foundation
import Core
import TestSupport

/// A tool whose behaviour is a closure over raw JSON arguments.
struct ClosureTool: AgentTool {
    typealias Arguments = JSONValue
    let name: String
    var description: String = "a test tool"
    var parametersSchema: JSONValue = ["type": "object", "properties": [:], "required": [], "additionalProperties": false]
    let body: @Sendable (JSONValue) async throws -> JSONValue

    func run(_ arguments: JSONValue) async throws -> JSONValue { try await body(arguments) }
}

struct CityArguments: Decodable, Sendable {
    let city: String
}

/// A typed tool: weather for a city, recording each start in the journal.
struct WeatherTool: AgentTool {
    let journal: ToolJournal
    var name: String { "get_weather" }
    var description: String { "Current weather for a city." }
    var parametersSchema: JSONValue {
        ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"], "additionalProperties": false]
    }

    func run(_ arguments: CityArguments) async throws -> JSONValue {
        await journal.begin(name)
        defer { Task { await journal.end() } }
        return ["city": .string(arguments.city), "forecast": "sunny"]
    }
}

struct ToolExploded: Error, CustomStringConvertible {
    var description: String { "the calendar service is down" }
}

/// Which tools started, and how many ran at once.
actor ToolJournal {
    private(set) var starts: [String] = []
    private var active = 0
    private(set) var maxActive = 0

    func begin(_ name: String) {
        starts.append(name)
        active += 1
        maxActive = max(maxActive, active)
    }

    func end() { active -= 1 }

    /// Waits (bounded) until every name in `names` has started; false if that never happens.
    func waitUntilStarted(_ names: Set<String>, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if names.isSubset(of: Set(starts)) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }
}

let emptyObjectSchema: JSONValue = ["type": "object", "properties": [:], "required": [], "additionalProperties": false]

func makeRunner(_ server: FakeOpenAIServer, tools: [any AgentTool], limits: AgentLimits = AgentLimits()) throws -> AgentRunner {
    AgentRunner(client: makeClient(server, retry: .noRetries), tools: try tools.map { try AnyAgentTool($0) }, limits: limits)
}

extension RecordedRequest {
    /// The `messages` array of the body.
    var messages: [JSONValue] { json?["messages"]?.arrayValue ?? [] }
    /// The tool messages, as (tool_call_id, parsed content).
    var toolResults: [(id: String, content: JSONValue?)] {
        messages.filter { $0["role"] == "tool" }.map { message in
            (message["tool_call_id"]?.stringValue ?? "", message["content"]?.stringValue.flatMap { try? JSONValue.parse($0) })
        }
    }
}
