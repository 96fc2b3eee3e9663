import AgentRuntime
import Foundation
import Core
import NIOConcurrencyHelpers
import Testing
import TestSupport

@Suite("Client retries, timeouts and cancellation")
struct ClientRetryTests {
    @Test("429 with retry-after: 1 is retried after the second the server asked for")
    func retryAfterSeconds() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: 429, message: "Rate limit reached", type: "requests", headers: ["retry-after": "1"]), .chat(content: "ok"))
        let waits = NIOLockedValueBox<[Duration]>([])
        let result = try await makeClient(server, sleep: { wait in waits.withLockedValue { $0.append(wait) } }).complete(helloRequest)
        #expect(result.attempts == 2)
        #expect(result.response.firstChoice.message.content == "ok")
        #expect(server.requests.count == 2)
        #expect(waits.withLockedValue { $0 } == [.seconds(1)], "the one wait is the server's hint, not the backoff")
    }

    @Test("retry-after-ms takes precedence over retry-after")
    func retryAfterMilliseconds() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.status(429, body: "{}", headers: ["retry-after-ms": "300", "retry-after": "30"]), .chat(content: "ok"))
        let waits = NIOLockedValueBox<[Duration]>([])
        let result = try await makeClient(server, sleep: { wait in waits.withLockedValue { $0.append(wait) } }).complete(helloRequest)
        #expect(result.attempts == 2)
        #expect(server.requests.count == 2)
        #expect(waits.withLockedValue { $0 } == [.milliseconds(300)])
    }

    @Test("a server error then success takes two attempts")
    func serverErrorThenSuccess() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: 500, message: "boom", type: "server_error"), .chat(content: "ok"))
        let result = try await makeClient(server).complete(helloRequest)
        #expect(result.attempts == 2)
        #expect(server.requests.count == 2)
    }

    @Test("a connection reset is retried")
    func resetRetried() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.closeConnection, .chat(content: "ok"))
        let result = try await makeClient(server).complete(helloRequest)
        #expect(result.attempts == 2)
        #expect(result.response.firstChoice.message.content == "ok")
    }

    @Test("client errors are not retried", arguments: [400, 401, 403, 404, 422])
    func clientErrorsNotRetried(status: Int) async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: status, message: "nope \(status)"), .chat(content: "never sent"))
        let error = await llmError { _ = try await makeClient(server).complete(helloRequest) }
        guard case .http(let got, let message, let requestID) = error else {
            Issue.record("expected an HTTP error, got \(String(describing: error))")
            return
        }
        #expect(got == status)
        #expect(message == "nope \(status)")
        #expect(requestID == "req_fake_0")
        #expect(server.requests.count == 1)
    }

    @Test("exhausted retries report the attempts and the last status")
    func exhausted() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: 502, message: "a"), .error(status: 503, message: "b"), .error(status: 500, message: "c"), .error(status: 503, message: "last one"))
        let error = await llmError { _ = try await makeClient(server).complete(helloRequest) }
        guard case .retriesExhausted(let attempts, .http(let status, let message, _)) = error else {
            Issue.record("expected retriesExhausted, got \(String(describing: error))")
            return
        }
        #expect(attempts == 4)
        #expect(status == 503)
        #expect(message == "last one")
        #expect(server.requests.count == 4)
    }

    @Test("a retry-after beyond the limit is not waited for")
    func retryAfterTooLong() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.status(429, body: "{}", headers: ["retry-after": "3600"]), .chat(content: "never"))
        let error = await llmError { _ = try await makeClient(server).complete(helloRequest) }
        #expect(error?.underlying.isRetryable == true)
        if case .http(429, _, _) = error?.underlying {} else { Issue.record("expected the 429, got \(String(describing: error))") }
        #expect(server.requests.count == 1)
    }

    @Test("the per-request timeout fires on a reply that never comes in time")
    func timeout() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.delay(10, then: .chat(content: "too late")))
        let client = makeClient(server, timeout: .milliseconds(300), retry: .noRetries)
        let error = await llmError { _ = try await client.complete(helloRequest) }
        guard case .timeout(let limit) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(limit == .milliseconds(300))
        #expect(server.requests.count == 1, "the request reached the server before the timeout fired")
    }

    @Test("timeouts are retried and then reported as exhausted")
    func timeoutRetried() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.delay(10, then: .chat(content: "late")), .delay(10, then: .chat(content: "late")))
        let client = makeClient(server, timeout: .milliseconds(200), retry: RetryPolicy.modelCalls(maxAttempts: 2, baseDelay: .milliseconds(5)))
        let error = await llmError { _ = try await client.complete(helloRequest) }
        guard case .retriesExhausted(2, .timeout) = error else {
            Issue.record("expected exhausted timeouts, got \(String(describing: error))")
            return
        }
        #expect(server.requests.count == 2)
    }

    @Test("cancellation ends an in-flight call with .cancelled and no retry")
    func cancellation() async throws {
        let server = try FakeOpenAIServer()
        // The reply and the timeout lie beyond any delay a saturated test run puts between the request and cancel().
        server.enqueue(.delay(600, then: .chat(content: "late")), .chat(content: "never"))
        let client = makeClient(server, timeout: .seconds(900))
        let task = Task { try await client.complete(helloRequest) }
        #expect(await server.waitForRequests(count: 1).count == 1)
        task.cancel()
        let error = await llmError { _ = try await task.value }
        guard case .cancelled = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        #expect(server.requests.count == 1)
    }

    @Test("cancellation during a backoff wait stops retrying")
    func cancellationDuringBackoff() async throws {
        let server = try FakeOpenAIServer()
        // A 10-minute retry-after: the backoff outlasts any delay a saturated test run puts before cancel().
        server.enqueue(.status(503, body: "{}", headers: ["retry-after": "600"]), .chat(content: "never"))
        let client = makeClient(server, retry: RetryPolicy.modelCalls(maxAttempts: 4, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50),
                                                           totalBudget: .seconds(1800), maxRetryAfter: .seconds(900)))
        let task = Task { try await client.complete(helloRequest) }
        #expect(await server.waitForRequests(count: 1).count == 1)
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let error = await llmError { _ = try await task.value }
        guard case .cancelled = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        #expect(server.requests.count == 1)
    }
}

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("backoff is full jitter under an exponential ceiling")
    func backoff() {
        let policy = RetryPolicy.modelCalls(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(afterAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 10, random: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, random: 0) == .zero)
    }

    @Test("retry-after headers: milliseconds, seconds, HTTP date, garbage")
    func retryAfter() throws {
        #expect(RetryPolicy.retryAfter(headers: ["retry-after-ms": "250"]) == .milliseconds(250))
        #expect(RetryPolicy.retryAfter(headers: ["retry-after": "2"]) == .seconds(2))
        #expect(RetryPolicy.retryAfter(headers: ["retry-after": "0.5"]) == .milliseconds(500))
        let now = try #require(ISO8601DateFormatter().date(from: "1994-11-06T08:49:30Z"))
        #expect(RetryPolicy.retryAfter(headers: ["retry-after": "Sun, 06 Nov 1994 08:49:37 GMT"], now: now) == .seconds(7))
        #expect(RetryPolicy.retryAfter(headers: ["retry-after": "soon"]) == nil)
        #expect(RetryPolicy.retryAfter(headers: [:]) == nil)
    }

    @Test("retryable statuses: timeouts, rate limits, unavailable servers; a 500 once; the caller's faults never")
    func statuses() {
        #expect([408, 429, 502, 503, 504].allSatisfy(RetryPolicy.isRetryable(status:)))
        #expect(![400, 401, 403, 404, 409, 422, 500, 599, 200, 301].contains(where: RetryPolicy.isRetryable(status:)))
        #expect(LLMError.http(status: 500, message: "boom", requestID: nil).retryLimit == 1)
        #expect(LLMError.http(status: 599, message: "odd", requestID: nil).retryLimit == 0)
        #expect(LLMError.http(status: 400, message: "output does not match the expected format", requestID: nil).retryLimit == 1)
        #expect(LLMError.http(status: 400, message: "unknown parameter", requestID: nil).retryLimit == 0)
        #expect(LLMError.http(status: 503, message: "loading", requestID: nil).retryLimit == nil)
    }
}
