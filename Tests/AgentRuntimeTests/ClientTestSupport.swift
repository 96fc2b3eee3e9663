import AgentRuntime
import Foundation
import Core
import TestSupport

/// Builds a client pointed at a fake server, with tiny backoff so retry tests stay quick.
func makeClient(
    _ server: FakeOpenAIServer,
    apiKey: String? = "sk-test-key",
    model: String? = "gpt-test",
    structuredOutput: StructuredOutputMode = .jsonSchema,
    maxTokensField: MaxTokensField = .maxCompletionTokens,
    timeout: Duration = .seconds(10),
    retry: RetryPolicy = RetryPolicy.modelCalls(maxAttempts: 4, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
) -> OpenAIClient {
    server.client(apiKey: apiKey, model: model, structuredOutput: structuredOutput, maxTokensField: maxTokensField, timeout: timeout,
                  retry: retry, sleep: sleep)
}

let helloRequest = ChatCompletionRequest(messages: [.system("You are terse."), .user("Hello")])

/// JSON paths of every `null` in a value, to prove unset fields are omitted rather than sent as null.
func nullPaths(_ value: JSONValue, path: String = "$") -> [String] {
    switch value {
    case .null: [path]
    case .array(let items): items.enumerated().flatMap { nullPaths($0.element, path: "\(path)[\($0.offset)]") }
    case .object(let object): object.flatMap { nullPaths($0.value, path: "\(path).\($0.key)") }
    default: []
    }
}

/// Runs `body` and returns the `LLMError` it throws, or nil if it throws nothing or something else.
func llmError(_ body: () async throws -> Void) async -> LLMError? {
    do {
        try await body()
        return nil
    } catch let error as LLMError {
        return error
    } catch {
        return nil
    }
}
