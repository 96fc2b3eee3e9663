package import Logging

/// A `ChatCompleting` that asks a shared `RateLimiter` before each request, so callers (the extraction engine)
/// get rate limiting without knowing about it.
package struct RateLimitedClient: ChatCompleting {
    package let inner: any ChatCompleting
    package let limiter: RateLimiter

    package var circuitBreaker: CircuitBreaker? { inner.circuitBreaker }

    package init(inner: any ChatCompleting, limiter: RateLimiter) {
        self.inner = inner
        self.limiter = limiter
    }

    package func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        try await complete(request, logger: nil)
    }

    package func complete(_ request: ChatCompletionRequest, logger: Logger) async throws -> ChatCompletionResult {
        try await complete(request, logger: Optional(logger))
    }

    private func complete(_ request: ChatCompletionRequest, logger: Logger?) async throws -> ChatCompletionResult {
        let permit: RateLimiter.Permit
        do {
            permit = try await limiter.acquire(estimatedTokens: Self.estimatedTokens(request, defaultMaxTokens: limiter.limits.defaultMaxTokens))
        } catch is CancellationError {
            throw LLMError.cancelled
        }
        // A failed call keeps its reservation: it may well have reached the server and counted there.
        let result = if let logger { try await inner.complete(request, logger: logger) } else { try await inner.complete(request) }
        await limiter.finish(permit, usage: result.response.usage, attempts: result.attempts, rateLimit: result.rateLimit)
        return result
    }

    /// What a request may cost before it is answered: its serialized body at four bytes a token, plus the
    /// completion tokens it allows (servers count those against the budget up front).
    package static func estimatedTokens(_ request: ChatCompletionRequest, defaultMaxTokens: Int = 1024) -> Int {
        request.body().serializedData().count / 4 + (request.maxCompletionTokens ?? defaultMaxTokens)
    }
}
