package import Foundation
import Core

/// A decoded Chat Completions answer. Unknown fields are ignored; the fields the spec requires must be present.
package struct ChatCompletionResponse: Sendable, Hashable {
    package var id: String
    package var model: String
    package var created: Int
    package var choices: [Choice]
    package var usage: Usage?
    package var systemFingerprint: String?
    /// Why the server's `usage` block was discarded (negative, fractional, not a number, or beyond any real request):
    /// `usage` is then nil, unknown, so an impossible count is never stored, summed or fed to a counter.
    package var discardedUsage: String?

    package init(id: String, model: String, created: Int, choices: [Choice], usage: Usage?, systemFingerprint: String? = nil) {
        self.id = id
        self.model = model
        self.created = created
        self.choices = choices
        self.usage = usage
        self.systemFingerprint = systemFingerprint
    }

    /// `model` as a row may record it: the name the server answered with, when it reads as a model name (1 to 200
    /// characters, no control characters); nil otherwise, and the caller keeps the name it asked for.
    package var servedModel: String? {
        let name = model.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return name
    }

    /// The first choice; decoding guarantees there is one.
    package var firstChoice: Choice { choices[0] }

    package struct Choice: Sendable, Hashable {
        package var index: Int
        package var message: Message
        package var finishReason: FinishReason

        package init(index: Int, message: Message, finishReason: FinishReason) {
            self.index = index
            self.message = message
            self.finishReason = finishReason
        }
    }

    package struct Message: Sendable, Hashable {
        package var content: String?
        package var refusal: String?
        package var toolCalls: [ToolCall]

        package init(content: String?, refusal: String? = nil, toolCalls: [ToolCall] = []) {
            self.content = content
            self.refusal = refusal
            self.toolCalls = toolCalls
        }

        /// The message as it goes back into the conversation.
        var asChatMessage: ChatMessage { .assistant(content: content, toolCalls: toolCalls) }
    }
}

/// Why the model stopped. Unknown values are kept, not rejected, since compatible servers invent their own.
package enum FinishReason: Sendable, Hashable, CustomStringConvertible {
    case stop, length, toolCalls, contentFilter, functionCall
    case unknown(String)

    package init(rawValue: String) {
        switch rawValue {
        case "stop": self = .stop
        case "length": self = .length
        case "tool_calls": self = .toolCalls
        case "content_filter": self = .contentFilter
        case "function_call": self = .functionCall
        default: self = .unknown(rawValue)
        }
    }

    package var rawValue: String {
        switch self {
        case .stop: "stop"
        case .length: "length"
        case .toolCalls: "tool_calls"
        case .contentFilter: "content_filter"
        case .functionCall: "function_call"
        case .unknown(let value): value
        }
    }

    package var description: String { rawValue }
}

/// Token counts of one or more calls; `+` sums them so a run can report its total.
package struct Usage: Sendable, Hashable, Codable {
    package var promptTokens: Int
    package var completionTokens: Int
    package var totalTokens: Int
    /// Prompt tokens served from the provider's prompt cache (`prompt_tokens_details.cached_tokens`).
    package var cachedPromptTokens: Int?
    package var reasoningTokens: Int?

    package init(promptTokens: Int = 0, completionTokens: Int = 0, totalTokens: Int? = nil, cachedPromptTokens: Int? = nil, reasoningTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens ?? promptTokens + completionTokens
        self.cachedPromptTokens = cachedPromptTokens
        self.reasoningTokens = reasoningTokens
    }

    package static let zero = Usage()

    package static func + (lhs: Usage, rhs: Usage) -> Usage {
        func sum(_ a: Int?, _ b: Int?) -> Int? { a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0) }
        return Usage(
            promptTokens: lhs.promptTokens + rhs.promptTokens,
            completionTokens: lhs.completionTokens + rhs.completionTokens,
            totalTokens: lhs.totalTokens + rhs.totalTokens,
            cachedPromptTokens: sum(lhs.cachedPromptTokens, rhs.cachedPromptTokens),
            reasoningTokens: sum(lhs.reasoningTokens, rhs.reasoningTokens)
        )
    }

    package static func += (lhs: inout Usage, rhs: Usage) { lhs = lhs + rhs }
}

// MARK: - Decoding

extension ChatCompletionResponse {
    /// Decodes a response body; the error names the JSON path that was wrong.
    package static func decode(_ data: Data) throws(ResponseDecodingError) -> ChatCompletionResponse {
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
        var response = ChatCompletionResponse(
            id: try root.requiredString("id"),
            model: try root.requiredString("model"),
            created: try root.requiredInt("created"),
            choices: choices,
            usage: nil,
            systemFingerprint: try root.optionalString("system_fingerprint")
        )
        do {
            response.usage = try root.optional("usage").map(Usage.init(checking:))
        } catch {
            response.discardedUsage = "\(error)"
        }
        return response
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
}

/// Why a response body could not be decoded, with the JSON path.
package struct ResponseDecodingError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
