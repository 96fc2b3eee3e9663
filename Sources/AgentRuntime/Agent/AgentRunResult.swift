package import Core

/// Why a run ended.
package enum AgentStopReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The model answered on its own.
    case completed
    /// The step limit forced the final call with `tool_choice: "none"`; `finalText` is that forced answer if any.
    case maxSteps
    case tokenBudget
    case deadline
    /// The model kept repeating a call it had already made.
    case repeatedToolCall
    case refused(String)
    case cancelled
    /// The model call failed, or the answer stayed unusable (e.g. schema-invalid after the one re-ask).
    case error(String)

    package var description: String {
        switch self {
        case .completed: "completed"
        case .maxSteps: "max_steps"
        case .tokenBudget: "token_budget"
        case .deadline: "deadline"
        case .repeatedToolCall: "repeated_tool_call"
        case .refused(let why): "refused: \(why)"
        case .cancelled: "cancelled"
        case .error(let why): "error: \(why)"
        }
    }

    /// Reads back a `description` ("completed", "refused: …", "error: …"); nil for any other text.
    package init?(_ text: String) {
        switch text {
        case "completed": self = .completed
        case "max_steps": self = .maxSteps
        case "token_budget": self = .tokenBudget
        case "deadline": self = .deadline
        case "repeated_tool_call": self = .repeatedToolCall
        case "cancelled": self = .cancelled
        case _ where text.hasPrefix("refused: "): self = .refused(String(text.dropFirst("refused: ".count)))
        case _ where text.hasPrefix("error: "): self = .error(String(text.dropFirst("error: ".count)))
        default: return nil
        }
    }

    /// Encoded as its `description`, the text `assistant_runs.stop_reason` and the JSON reports carry.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let reason = AgentStopReason(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text.prefix(100))' is not an agent stop reason")
        }
        self = reason
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Everything a run produced. A run never throws: failures are a stop reason, so traces survive them.
package struct AgentRunResult: Sendable {
    /// The final answer's text, when there is one.
    package var finalText: String?
    /// The final answer parsed and validated, when an output schema was given and the answer met it.
    package var output: JSONValue?
    package var stopReason: AgentStopReason
    /// The whole conversation: system, user, every assistant turn and tool result.
    package var messages: [ChatMessage]
    package var steps: [AgentStepTrace]
    /// Summed over all steps.
    package var usage: Usage
    package var duration: Duration
    /// HTTP attempts made, retries and failed calls included (what the server was asked for, and may bill).
    package var attempts: Int = 0
    /// The model the server last said answered (`ChatCompletionResponse.servedModel`), for rows that record it.
    package var servedModel: String?

    /// Number of tool calls that ran (or were answered with an error) across the run.
    package var toolCallCount: Int { steps.reduce(0) { $0 + $1.toolCalls.count } }
}
