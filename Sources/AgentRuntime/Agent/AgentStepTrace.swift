package import Core

/// What happened in one model call of a run, bounded in size so it can be stored as a row (e.g. as jsonb via `json`).
package struct AgentStepTrace: Sendable, Hashable, Codable {
    /// 1-based.
    package var index: Int
    package var request: RequestSummary
    package var toolCalls: [ToolCallTrace]
    package var usage: Usage?
    /// Model call time; tool time is on each tool call.
    package var latencyMs: Int64
    package var finishReason: String?
    package var attempts: Int?
    package var requestID: String?
    /// The model's text this step, bounded.
    var assistantText: String?
    /// Why the step failed, when it did.
    package var error: String?

    package struct RequestSummary: Sendable, Hashable, Codable {
        var messageCount: Int
        package var toolNames: [String]
        package var toolChoice: String
        package var responseFormat: String?
    }

    /// The trace as JSON, for storing.
    package var json: JSONValue { (try? JSONValue.encode(self)) ?? .null }
}

/// One tool call of a step: what was asked, what came back and whether it ran.
package struct ToolCallTrace: Sendable, Hashable, Codable {
    package var id: String
    package var name: String
    /// The raw arguments string, bounded.
    package var arguments: String
    /// The tool message content sent back, bounded.
    package var result: String
    package var status: ToolCallStatus
    package var latencyMs: Int64
}

/// How a tool call ended. Everything but `ok` was reported to the model as `{"error": ...}`.
package enum ToolCallStatus: String, Sendable, Hashable, Codable {
    case ok
    case unknownTool = "unknown_tool"
    case invalidJSON = "invalid_json"
    case invalidArguments = "invalid_arguments"
    case toolFailed = "tool_failed"
    case repeated
    case overLimit = "over_limit"
    /// The tool answered with more than `AgentLimits.maxToolResultBytes`; the model got an error instead.
    case resultTooLarge = "result_too_large"
    /// The run's deadline passed while the tool was running.
    case cancelled
}
