import AgentRuntime
import Logging

/// `eval`'s model client with a rate limit: a request its answer cache holds is answered from disk without asking
/// the limiter (nothing reaches the model server); every other request goes through `RateLimitedClient` on the
/// process's one limiter, as every command's model requests do. The cache sits below the client (it stores HTTP
/// bodies), so the client asks it first with the exact HTTP request it would send.
struct CacheFirstClient: ChatCompleting {
    /// The client over `cache`: what both paths send through.
    let client: OpenAIClient
    let cache: CachingTransport
    let limited: RateLimitedClient

    init(client: OpenAIClient, cache: CachingTransport, limiter: RateLimiter) {
        self.client = client
        self.cache = cache
        self.limited = RateLimitedClient(inner: client, limiter: limiter)
    }

    var circuitBreaker: CircuitBreaker? { client.circuitBreaker }

    func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        try await route(request).complete(request)
    }

    func complete(_ request: ChatCompletionRequest, logger: Logger) async throws -> ChatCompletionResult {
        try await route(request).complete(request, logger: logger)
    }

    /// The cache for a request it answers; the limiter otherwise (a request the client cannot build fails there).
    private func route(_ request: ChatCompletionRequest) -> any ChatCompleting {
        if let sent = try? client.httpRequest(for: request), cache.answers(sent) { return client }
        return limited
    }
}
