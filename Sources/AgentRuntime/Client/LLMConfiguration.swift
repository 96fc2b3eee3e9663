import Foundation
import JSONKit

/// Where and how to reach one OpenAI-compatible provider. Provider quirks live here, not in callers.
public struct LLMConfiguration: Sendable {
    /// `nil` for local servers that need no key; the `Authorization` header is then not sent.
    public var apiKey: String?
    /// The API root, e.g. `https://api.openai.com/v1`; requests go to `{baseURL}/chat/completions`.
    public var baseURL: URL
    /// Used when a request names no model.
    public var defaultModel: String?
    public var structuredOutput: StructuredOutputMode
    public var maxTokensField: MaxTokensField
    /// The limit for one HTTP attempt (not the whole call with its retries; see `RetryPolicy.totalBudget`).
    public var requestTimeout: Duration
    public var retryPolicy: RetryPolicy

    public static let openAIBaseURL = URL(string: "https://api.openai.com/v1")!

    public init(
        apiKey: String? = nil,
        baseURL: URL = LLMConfiguration.openAIBaseURL,
        defaultModel: String? = nil,
        structuredOutput: StructuredOutputMode = .jsonSchema,
        maxTokensField: MaxTokensField = .maxCompletionTokens,
        requestTimeout: Duration = .seconds(60),
        retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.baseURL = baseURL
        self.defaultModel = defaultModel
        self.structuredOutput = structuredOutput
        self.maxTokensField = maxTokensField
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
    }

    /// `{baseURL}/chat/completions`, tolerating a trailing slash on the base.
    public var chatCompletionsURL: URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/chat/completions")!
    }

    /// The response format that asks this provider for JSON matching `schema`.
    /// With `.jsonObject` the server may not enforce the schema: the caller must also describe it in the prompt.
    public func responseFormat(for schema: JSONValue, name: String) -> ResponseFormat {
        switch structuredOutput {
        case .jsonSchema: .jsonSchema(name: name, schema: schema, strict: true)
        case .jsonObject: .jsonObject(schema: schema)
        }
    }

    /// Reads `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL`, `OPENAI_STRUCTURED_OUTPUT` (json_schema|json_object)
    /// and `OPENAI_MAX_TOKENS_FIELD` (max_completion_tokens|max_tokens). Returns nil when neither a key nor a base URL
    /// is set, meaning no LLM is configured; unrecognised values fall back to OpenAI's behaviour.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> LLMConfiguration? {
        func value(_ name: String) -> String? {
            guard let raw = env[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        let key = value("OPENAI_API_KEY")
        let base = value("OPENAI_BASE_URL").flatMap { URL(string: $0) }
        guard key != nil || base != nil else { return nil }
        return LLMConfiguration(
            apiKey: key,
            baseURL: base ?? openAIBaseURL,
            defaultModel: value("OPENAI_MODEL"),
            structuredOutput: value("OPENAI_STRUCTURED_OUTPUT").flatMap(StructuredOutputMode.init(rawValue:)) ?? .jsonSchema,
            maxTokensField: value("OPENAI_MAX_TOKENS_FIELD").flatMap(MaxTokensField.init(rawValue:)) ?? .maxCompletionTokens
        )
    }
}

extension LLMConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    /// Safe to log: the key is shown only as set or not.
    public var description: String {
        "LLMConfiguration(baseURL: \(baseURL.absoluteString), apiKey: \(apiKey == nil ? "none" : "[redacted]"), "
            + "defaultModel: \(defaultModel ?? "none"), structuredOutput: \(structuredOutput.rawValue), "
            + "maxTokensField: \(maxTokensField.rawValue), requestTimeout: \(requestTimeout))"
    }

    public var debugDescription: String { description }
}

/// How a provider supports structured answers: strict `json_schema` (OpenAI) or only `json_object` (llama.cpp).
public enum StructuredOutputMode: String, Sendable, Hashable, CaseIterable {
    case jsonSchema = "json_schema"
    case jsonObject = "json_object"
}
