import JSONKit

/// What happened in one model call of a run, bounded in size so it can be stored as a row (e.g. as jsonb via `json`).
public struct AgentStepTrace: Sendable, Hashable, Codable {
    /// 1-based.
    public var index: Int
    public var request: RequestSummary
    public var toolCalls: [ToolCallTrace]
    public var usage: Usage?
    /// Model call time; tool time is on each tool call.
    public var latencyMs: Int64
    public var finishReason: String?
    public var attempts: Int?
    public var requestID: String?
    /// The model's text this step, bounded.
    public var assistantText: String?
    /// Why the step failed, when it did.
    public var error: String?

    public struct RequestSummary: Sendable, Hashable, Codable {
        public var messageCount: Int
        public var toolNames: [String]
        public var toolChoice: String
        public var responseFormat: String?
    }

    /// The trace as JSON, for storing.
    public var json: JSONValue { (try? JSONValue.encode(self)) ?? .null }
}

/// One tool call of a step: what was asked, what came back and whether it ran.
public struct ToolCallTrace: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    /// The raw arguments string, bounded.
    public var arguments: String
    /// The tool message content sent back, bounded.
    public var result: String
    public var status: ToolCallStatus
    public var latencyMs: Int64
}

/// How a tool call ended. Everything but `ok` was reported to the model as `{"error": ...}`.
public enum ToolCallStatus: String, Sendable, Hashable, Codable {
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
