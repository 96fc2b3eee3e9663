import Foundation

/// What the model did in one turn, decided from its first choice; the loop acts on this and nothing else.
enum ModelTurn: Equatable {
    case toolCalls([ToolCall])
    case answer(String)
    case refusal(String)
    /// No tool calls, no text and no refusal: nothing to act on.
    case empty

    init(_ message: ChatCompletionResponse.Message) {
        if !message.toolCalls.isEmpty {
            self = .toolCalls(message.toolCalls)
        } else if let refusal = message.refusal, !refusal.isEmpty {
            self = .refusal(refusal)
        } else if let content = message.content, !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            self = .answer(content)
        } else {
            self = .empty
        }
    }
}
