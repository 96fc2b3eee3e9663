import AgentRuntime
import JSONKit
import Logging
import PromptKit

/// Where an extractor's raw answer comes from: an LLM, or the rule-based provider that needs none.
/// Both answer in the feature's schema, and the engine validates and checks both the same way.
public protocol AnswerProvider: Sendable {
    /// A short name for reports ("openai", "rules").
    var name: String { get }
    /// Recorded as the `model` of every row this provider's answers produce.
    func modelName(for prompt: Prompt) -> String
    func answer(_ request: AnswerRequest) async throws -> ProviderAnswer
}

/// One feature over one window of one conversation.
public struct AnswerRequest: Sendable {
    public let feature: ExtractionFeature
    public let prompt: Prompt
    public let rendered: RenderedPrompt
    public let window: MessageWindow
    public let input: ConversationInput
    public let schema: JSONSchema
    /// The caller's logger (run, conversation and feature ids as metadata) for the client's lines; nil: the provider's own.
    public var logger: Logger? = nil
}

public struct ProviderAnswer: Sendable {
    public var json: JSONValue
    public var usage: TokenUsage
    public var requests: Int
    public var reasked: Bool

    public init(json: JSONValue, usage: TokenUsage = TokenUsage(), requests: Int = 0, reasked: Bool = false) {
        self.json = json
        self.usage = usage
        self.requests = requests
        self.reasked = reasked
    }
}
