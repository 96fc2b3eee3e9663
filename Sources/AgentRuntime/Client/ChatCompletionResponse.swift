import Foundation
import JSONKit

/// A decoded Chat Completions answer. Unknown fields are ignored; the fields the spec requires must be present.
public struct ChatCompletionResponse: Sendable, Hashable {
    public var id: String
    public var model: String
    public var created: Int
    public var choices: [Choice]
    public var usage: Usage?
    public var systemFingerprint: String?

    public init(id: String, model: String, created: Int, choices: [Choice], usage: Usage?, systemFingerprint: String? = nil) {
        self.id = id
        self.model = model
        self.created = created
        self.choices = choices
        self.usage = usage
        self.systemFingerprint = systemFingerprint
    }

    /// The first choice; decoding guarantees there is one.
    public var firstChoice: Choice { choices[0] }

    public struct Choice: Sendable, Hashable {
        public var index: Int
        public var message: Message
        public var finishReason: FinishReason

        public init(index: Int, message: Message, finishReason: FinishReason) {
            self.index = index
            self.message = message
            self.finishReason = finishReason
        }
    }

    public struct Message: Sendable, Hashable {
        public var content: String?
        public var refusal: String?
        public var toolCalls: [ToolCall]

        public init(content: String?, refusal: String? = nil, toolCalls: [ToolCall] = []) {
            self.content = content
            self.refusal = refusal
            self.toolCalls = toolCalls
        }

        /// The message as it goes back into the conversation.
        public var asChatMessage: ChatMessage { .assistant(content: content, toolCalls: toolCalls) }
    }
}

/// Why the model stopped. Unknown values are kept, not rejected, since compatible servers invent their own.
public enum FinishReason: Sendable, Hashable, CustomStringConvertible {
    case stop, length, toolCalls, contentFilter, functionCall
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "stop": self = .stop
        case "length": self = .length
        case "tool_calls": self = .toolCalls
        case "content_filter": self = .contentFilter
        case "function_call": self = .functionCall
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .stop: "stop"
        case .length: "length"
        case .toolCalls: "tool_calls"
        case .contentFilter: "content_filter"
        case .functionCall: "function_call"
        case .unknown(let value): value
        }
    }

    public var description: String { rawValue }
}

/// Token counts of one or more calls; `+` sums them so a run can report its total.
public struct Usage: Sendable, Hashable, Codable {
    public var promptTokens: Int
    public var completionTokens: Int
    public var totalTokens: Int
    /// Prompt tokens served from the provider's prompt cache (`prompt_tokens_details.cached_tokens`).
    public var cachedPromptTokens: Int?
    public var reasoningTokens: Int?

    public init(promptTokens: Int = 0, completionTokens: Int = 0, totalTokens: Int? = nil, cachedPromptTokens: Int? = nil, reasoningTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens ?? promptTokens + completionTokens
        self.cachedPromptTokens = cachedPromptTokens
        self.reasoningTokens = reasoningTokens
    }

    public static let zero = Usage()

    public static func + (lhs: Usage, rhs: Usage) -> Usage {
        func sum(_ a: Int?, _ b: Int?) -> Int? { a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0) }
        return Usage(
            promptTokens: lhs.promptTokens + rhs.promptTokens,
            completionTokens: lhs.completionTokens + rhs.completionTokens,
            totalTokens: lhs.totalTokens + rhs.totalTokens,
            cachedPromptTokens: sum(lhs.cachedPromptTokens, rhs.cachedPromptTokens),
            reasoningTokens: sum(lhs.reasoningTokens, rhs.reasoningTokens)
        )
    }

    public static func += (lhs: inout Usage, rhs: Usage) { lhs = lhs + rhs }
}

// MARK: - Decoding

extension ChatCompletionResponse {
    /// Decodes a response body; the error names the JSON path that was wrong.
    public static func decode(_ data: Data) throws(ResponseDecodingError) -> ChatCompletionResponse {
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch { throw ResponseDecodingError(message: "the body is not JSON: \(error)") }
        do { return try decode(JSONFieldReader(json)) } catch let error as JSONFieldError {
            throw ResponseDecodingError(message: error.description)
        } catch {
            throw ResponseDecodingError(message: "\(error)")
        }
    }

    private static func decode(_ root: JSONFieldReader) throws -> ChatCompletionResponse {
        let choiceReaders = try root.required("choices").array()
        guard !choiceReaders.isEmpty else {
            throw JSONFieldError(path: "choices", message: "empty: the server returned no answer")
        }
        let choices = try choiceReaders.map(decodeChoice)
        return ChatCompletionResponse(
            id: try root.requiredString("id"),
            model: try root.requiredString("model"),
            created: try root.requiredInt("created"),
            choices: choices,
            usage: try root.optional("usage").map(decodeUsage),
            systemFingerprint: try root.optionalString("system_fingerprint")
        )
    }

    private static func decodeChoice(_ choice: JSONFieldReader) throws -> Choice {
        let message = try choice.required("message")
        let toolCalls = try message.optional("tool_calls")?.array().map { call in
            let function = try call.required("function")
            return ToolCall(id: try call.requiredString("id"), name: try function.requiredString("name"), arguments: try function.requiredString("arguments"))
        }
        return Choice(
            index: try choice.requiredInt("index"),
            message: Message(
                content: try message.optionalString("content"),
                refusal: try message.optionalString("refusal"),
                toolCalls: toolCalls ?? []
            ),
            finishReason: FinishReason(rawValue: try choice.requiredString("finish_reason"))
        )
    }

    private static func decodeUsage(_ usage: JSONFieldReader) throws -> Usage {
        let prompt = try usage.optionalInt("prompt_tokens") ?? 0
        let completion = try usage.optionalInt("completion_tokens") ?? 0
        return Usage(
            promptTokens: prompt,
            completionTokens: completion,
            totalTokens: try usage.optionalInt("total_tokens") ?? prompt + completion,
            cachedPromptTokens: try usage.optional("prompt_tokens_details")?.optionalInt("cached_tokens"),
            reasoningTokens: try usage.optional("completion_tokens_details")?.optionalInt("reasoning_tokens")
        )
    }
}

/// Why a response body could not be decoded, with the JSON path.
public struct ResponseDecodingError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
