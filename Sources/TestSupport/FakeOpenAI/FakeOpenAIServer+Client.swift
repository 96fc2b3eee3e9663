package import AgentRuntime
package import Core
import Foundation

extension FakeOpenAIServer {
    /// The key test clients send: shaped like a real one, so a test that looks for a leaked key has one to find.
    package static let testAPIKey = "sk-test-not-a-real-key"

    /// Real retries, but quick: `attempts` tries, 5–20 ms apart.
    package static func quickRetries(_ attempts: Int) -> RetryPolicy {
        RetryPolicy.modelCalls(maxAttempts: attempts, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20))
    }

    /// The real OpenAI client, JSON and retry code pointed at this server; nil `timeout` and `maxConcurrency` keep the
    /// client's defaults. Its `configuration` serves clients of other endpoints (batches). Each client gets a circuit
    /// breaker of its own (nil `breaker`), so one test's outage never refuses another test's requests.
    package func client(
        apiKey: String? = FakeOpenAIServer.testAPIKey,
        model: String? = nil,
        structuredOutput: StructuredOutputMode = .jsonSchema,
        maxTokensField: MaxTokensField = .maxCompletionTokens,
        timeout: Duration? = nil,
        retry: RetryPolicy = FakeOpenAIServer.quickRetries(2),
        maxConcurrency: Int? = nil,
        transport: any HTTPTransport = AsyncHTTPClientTransport.shared,
        breaker: CircuitBreaker? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) -> OpenAIClient {
        OpenAIClient(
            configuration: LLMConfiguration(apiKey: apiKey, baseURL: baseURL, defaultModel: model, structuredOutput: structuredOutput,
                                            maxTokensField: maxTokensField, requestTimeout: timeout, retryPolicy: retry,
                                            maxConcurrency: maxConcurrency),
            transport: transport, breaker: breaker ?? CircuitBreaker(server: baseURL.absoluteString), sleep: sleep)
    }
}
