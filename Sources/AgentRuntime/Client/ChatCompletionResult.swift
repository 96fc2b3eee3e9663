package import Logging

/// A successful completion with what it cost to get it.
package struct ChatCompletionResult: Sendable {
    package var response: ChatCompletionResponse
    /// HTTP attempts made, including the successful one.
    package var attempts: Int
    /// Wall time of the whole call, retries and waits included.
    package var latency: Duration
    /// The server's `x-request-id`, for support tickets and traces.
    package var requestID: String?
    package var rateLimit: RateLimitInfo

    package init(response: ChatCompletionResponse, attempts: Int = 1, latency: Duration = .zero, requestID: String? = nil, rateLimit: RateLimitInfo = RateLimitInfo()) {
        self.response = response
        self.attempts = attempts
        self.latency = latency
        self.requestID = requestID
        self.rateLimit = rateLimit
    }
}

/// The `x-ratelimit-*` headers of the last response, so a batch can slow down before it is throttled.
package struct RateLimitInfo: Sendable, Hashable {
    package var remainingRequests: Int?
    package var remainingTokens: Int?
    /// Kept as sent (e.g. `1s`, `6m0s`): providers format it differently.
    package var resetRequests: String?
    package var resetTokens: String?

    package init(remainingRequests: Int? = nil, remainingTokens: Int? = nil, resetRequests: String? = nil, resetTokens: String? = nil) {
        self.remainingRequests = remainingRequests
        self.remainingTokens = remainingTokens
        self.resetRequests = resetRequests
        self.resetTokens = resetTokens
    }

    init(headers: [String: String]) {
        self.init(
            remainingRequests: headers["x-ratelimit-remaining-requests"].flatMap { Int($0) },
            remainingTokens: headers["x-ratelimit-remaining-tokens"].flatMap { Int($0) },
            resetRequests: headers["x-ratelimit-reset-requests"],
            resetTokens: headers["x-ratelimit-reset-tokens"]
        )
    }
}

/// Anything that completes a chat: the HTTP client in production, a stub in tests of code above it.
package protocol ChatCompleting: Sendable {
    func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult
    /// The same, with the caller's logger (its run, conversation, feature or user ids as metadata) for the client's
    /// own lines about this request.
    func complete(_ request: ChatCompletionRequest, logger: Logger) async throws -> ChatCompletionResult
    /// The breaker of the server this client asks, for callers that must tell an outage from a bad answer after the
    /// fact (an agent run that ended in an error); nil for clients without one.
    var circuitBreaker: CircuitBreaker? { get }
}

extension ChatCompleting {
    /// Clients that log nothing of their own ignore the caller's logger.
    package func complete(_ request: ChatCompletionRequest, logger: Logger) async throws -> ChatCompletionResult {
        try await complete(request)
    }

    package var circuitBreaker: CircuitBreaker? { nil }
}
