import Foundation
import Core
import TestSupport
import Testing
@testable import AgentRuntime

/// Answers at once with fixed usage and rate-limit headers, counting calls.
private struct StubClient: ChatCompleting {
    let usage: Usage
    let rateLimit: RateLimitInfo

    func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        let response = ChatCompletionResponse(
            id: "stub", model: "stub", created: 0,
            choices: [.init(index: 0, message: .init(content: "{}"), finishReason: .init(rawValue: "stop"))], usage: usage)
        return ChatCompletionResult(response: response, rateLimit: rateLimit)
    }
}

@Suite("RateLimitedClient")
struct RateLimitedClientTests {
    @Test func theEstimateIsBodyBytesOverFourPlusMaxTokens() {
        let request = ChatCompletionRequest(model: "m", messages: [.user(String(repeating: "a", count: 400))], maxCompletionTokens: 500)
        let bytes = request.body().serializedData().count
        #expect(RateLimitedClient.estimatedTokens(request) == bytes / 4 + 500)
        let unbounded = ChatCompletionRequest(model: "m", messages: [.user("hi")])
        #expect(RateLimitedClient.estimatedTokens(unbounded, defaultMaxTokens: 64) == unbounded.body().serializedData().count / 4 + 64)
    }

    @Test func requestsWaitForTheBudgetAndAreReconciledWithRealUsage() async throws {
        let limiter = RateLimiter(limits: RateLimits(tokensPerMinute: 6000), clock: TestClock(advancesWhenSlept: true))
        let client = RateLimitedClient(inner: StubClient(usage: Usage(promptTokens: 100, completionTokens: 20), rateLimit: RateLimitInfo()), limiter: limiter)
        let request = ChatCompletionRequest(model: "m", messages: [.user("hello")], maxCompletionTokens: 4000)
        // Each call reserves ~4000 tokens but uses 120: after reconciliation there is room for the next at once.
        for _ in 0..<5 { _ = try await client.complete(request) }
        let stats = await limiter.stats
        #expect(stats.granted == 5)
        #expect(stats.delayed == 0)
    }

    @Test func withoutReconciliationTheSameCallsWouldWait() async throws {
        let limiter = RateLimiter(limits: RateLimits(tokensPerMinute: 6000), clock: TestClock(advancesWhenSlept: true))
        let request = ChatCompletionRequest(model: "m", messages: [.user("hello")], maxCompletionTokens: 4000)
        for _ in 0..<2 { _ = try await limiter.acquire(estimatedTokens: RateLimitedClient.estimatedTokens(request)) }
        #expect(await limiter.stats.delayed == 1)
    }

    @Test func serverHeadersFromTheRealClientHoldTheNextRequestUntilTheReset() async throws {
        let server = try FakeOpenAIServer()
        defer { server.stop() }
        server.enqueue(
            .withHeaders(["x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "7s",
                          "x-ratelimit-remaining-tokens": "90000", "x-ratelimit-reset-tokens": "1s"], .chat(content: "one")),
            .chat(content: "two"))
        let limiter = RateLimiter(limits: RateLimits(), clock: TestClock(advancesWhenSlept: true))
        let client = RateLimitedClient(inner: makeClient(server), limiter: limiter)
        let first = try await client.complete(helloRequest)
        #expect(first.rateLimit.remainingRequests == 0)
        let second = try await client.complete(helloRequest)
        #expect(second.response.firstChoice.message.content == "two")
        let stats = await limiter.stats
        #expect(stats.exhausted == 1)
        #expect(stats.totalWait == .seconds(7))
        #expect(server.requests.count == 2)
    }

    @Test func cancellingAWaitingCallThrowsCancelledAndSendsNothing() async throws {
        let server = try FakeOpenAIServer()
        defer { server.stop() }
        let clock = TestClock()
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 1), clock: clock)
        _ = try await limiter.acquire(estimatedTokens: 0)
        let client = RateLimitedClient(inner: makeClient(server), limiter: limiter)
        let call = Task { try await client.complete(helloRequest) }
        #expect(await clock.waitForSleepers(1))
        call.cancel()
        let error = await llmError { _ = try await call.value }
        guard case .cancelled? = error else {
            Issue.record("expected LLMError.cancelled, got \(String(describing: error))")
            return
        }
        #expect(server.requests.isEmpty)
    }
}
