import JSONKit

/// One chat message of a rendered prompt.
public struct RenderedMessage: Sendable, Hashable, Codable {
    public enum Role: String, Sendable, Hashable, Codable {
        case system, user, assistant
    }

    public let role: Role
    public let content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// Everything needed for one chat-completion request, and a stable value to cache or log it by.
public struct RenderedPrompt: Sendable, Hashable, Codable {
    public let promptID: String
    public let promptVersion: Int
    public let model: String
    public let temperature: Double?
    public let seed: Int?
    public let maxTokens: Int?
    public let messages: [RenderedMessage]
    public let outputName: String?
    public let outputSchema: JSONValue?

    public init(
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
