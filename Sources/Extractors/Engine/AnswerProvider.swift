package import AgentRuntime
package import Core
package import Logging
package import PromptKit

/// Where an extractor's raw answer comes from: an LLM, or the rule-based provider that needs none.
/// Both answer in the feature's schema, and the engine validates and checks both the same way.
package protocol AnswerProvider: Sendable {
    /// A short name for reports ("openai", "rules").
    var name: String { get }
    /// Recorded as the `model` of every row this provider's answers produce.
    func modelName(for prompt: Prompt) -> String
    func answer(_ request: AnswerRequest) async throws -> ProviderAnswer
    /// Whether the answers come from a model, whose tokens cost money (`RunCost`); the rules and an eval's labels do not.
    var isModel: Bool { get }
}

extension AnswerProvider {
    package var isModel: Bool { true }
}

/// One feature over one window of one conversation.
package struct AnswerRequest: Sendable {
    /// The engine's feature (from its registry): what a provider that needs more than the id asks (the rules).
    package let extractor: any Extractor
    package var feature: ExtractionFeature { extractor.id }
    package let prompt: Prompt
    package let rendered: RenderedPrompt
    package let window: MessageWindow
    package let input: ConversationInput
    package let schema: JSONSchema
    /// The caller's logger (run, conversation and feature ids as metadata) for the client's lines; nil: the provider's own.
    package var logger: Logger? = nil
    /// The schema the request sends when it is not the prompt's: the prompt's with the `known` list added, for a request
    /// that lists open items (docs/over-nights.md). `schema` still checks the answer's items; `known` is checked item by item.
    package var sentSchema: JSONValue? = nil
}

package struct ProviderAnswer: Sendable {
    package var json: JSONValue
    package var usage: TokenUsage
    package var requests: Int
    package var reasked: Bool
    /// The model the server says answered (`ChatCompletionResponse.servedModel`); nil for answers no server gave.
    package var servedModel: String?

    package init(json: JSONValue, usage: TokenUsage = TokenUsage(), requests: Int = 0, reasked: Bool = false, servedModel: String? = nil) {
        self.json = json
        self.usage = usage
        self.requests = requests
        self.reasked = reasked
        self.servedModel = servedModel
    }
}
