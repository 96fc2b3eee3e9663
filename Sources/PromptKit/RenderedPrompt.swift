package import Core

/// One chat message of a rendered prompt.
package struct RenderedMessage: Sendable, Hashable, Codable {
    package enum Role: String, Sendable, Hashable, Codable {
        case system, user, assistant
    }

    package let role: Role
    package let content: String

    package init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// Everything needed for one chat-completion request, and a stable value to cache or log it by.
package struct RenderedPrompt: Sendable, Hashable, Codable {
    package let promptID: String
    package let promptVersion: Int
    package let model: String
    package let temperature: Double?
    package let seed: Int?
    package let maxTokens: Int?
    package let messages: [RenderedMessage]
    package let outputName: String?
    package let outputSchema: JSONValue?

    package init(
        promptID: String, promptVersion: Int, model: String, temperature: Double?, seed: Int?, maxTokens: Int?,
        messages: [RenderedMessage], outputName: String?, outputSchema: JSONValue?
    ) {
        self.promptID = promptID
        self.promptVersion = promptVersion
        self.model = model
        self.temperature = temperature
        self.seed = seed
        self.maxTokens = maxTokens
        self.messages = messages
        self.outputName = outputName
        self.outputSchema = outputSchema
    }
}
