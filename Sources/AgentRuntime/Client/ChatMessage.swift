package import Core

/// One message of a Chat Completions conversation, in the four roles this package sends.
package enum ChatMessage: Sendable, Hashable {
    case system(String)
    case user(String)
    /// A model turn; replayed verbatim so the model sees its own tool calls next to their results.
    case assistant(content: String?, toolCalls: [ToolCall])
    /// The result of one tool call, matched to it by `toolCallID`.
    case tool(toolCallID: String, content: String)

    package var role: String {
        switch self {
        case .system: "system"
        case .user: "user"
        case .assistant: "assistant"
        case .tool: "tool"
        }
    }

    /// The wire shape; absent values are left out rather than sent as `null`.
    package var json: JSONValue {
        var object: JSONObject = ["role": .string(role)]
        switch self {
        case .system(let text), .user(let text):
            object["content"] = .string(text)
        case .assistant(let content, let toolCalls):
            if let content { object["content"] = .string(content) }
            if !toolCalls.isEmpty { object["tool_calls"] = .array(toolCalls.map(\.json)) }
        case .tool(let toolCallID, let content):
            object["tool_call_id"] = .string(toolCallID)
            object["content"] = .string(content)
        }
        return .object(object)
    }
}

/// A function call the model asked for. `arguments` stays the raw string the model wrote: it may not be JSON.
package struct ToolCall: Sendable, Hashable, Codable {
    package var id: String
    package var name: String
    package var arguments: String

    package init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    package var json: JSONValue {
        ["id": .string(id), "type": "function", "function": ["name": .string(name), "arguments": .string(arguments)]]
    }
}
