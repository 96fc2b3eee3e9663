@testable import AgentRuntime
import Foundation
import Testing
import TestSupport

@Suite("Circuit breaker per model server")
struct CircuitBreakerTests {
    static let request = ChatCompletionRequest(model: "m", messages: [.user("hello")])

    static func client(_ server: FakeOpenAIServer, _ breaker: CircuitBreaker, attempts: Int = 1) -> OpenAIClient {
        server.client(retry: FakeOpenAIServer.quickRetries(attempts), breaker: breaker)
    }

    @Test("after threshold 5xx answers in a row, for as many calls, the breaker opens and later calls are refused unsent")
    func opensAfterThreshold() async throws {
        let server = try FakeOpenAIServer { _ in .error(status: 503, message: "overloaded", type: "server_error") }
        defer { server.stop() }
        let breaker = CircuitBreaker(server: "fake", threshold: 3, calls: 3, cooldown: .seconds(60))
        let client = Self.client(server, breaker)
        for _ in 0..<3 { await #expect(throws: LLMError.self) { try await client.complete(Self.request) } }
        #expect(breaker.isOpen)
        #expect(server.requests.count == 3)
        do {
            _ = try await client.complete(Self.request)
            Issue.record("an open breaker let a call through")
        } catch let error as LLMError {
            let outage = try #require(error.outage)
            #expect(outage.failures == 3 && outage.lastError.contains("503") && outage.lastError.contains("overloaded"),
                    "the last error carries the body's message: \(outage)")
            #expect(error.description.contains("circuit breaker open"))
            #expect(error.attempts == 0, "a refused call sent nothing")
        }
        #expect(server.requests.count == 3, "nothing more was sent")
        #expect(breaker.refused == 1)
    }

    @Test("the call whose failure opens the breaker reports the outage; its retries stop at once")
    func retriesStopWhenOpen() async throws {
        let server = try FakeOpenAIServer { _ in .closeConnection }
        defer { server.stop() }
        let breaker = CircuitBreaker(server: "fake", threshold: 2, cooldown: .seconds(60))
        do {
            _ = try await Self.client(server, breaker, attempts: 6).complete(Self.request)
            Issue.record("a reset connection succeeded")
        } catch let error as LLMError {
            #expect(error.outage != nil, "\(error)")
            #expect(error.attempts == 2)
        }
        #expect(server.requests.count == 2, "six attempts allowed, two sent")
    }

    @Test("answers below 500 prove the server is up: 4xx and 429 reset the count")
    func clientErrorsReset() async throws {
        let server = try FakeOpenAIServer()
        defer { server.stop() }
        server.enqueue(.error(status: 500, message: "x", type: "server_error"), .error(status: 500, message: "x", type: "server_error"),
                       .error(status: 400, message: "bad request"),
                       .error(status: 500, message: "x", type: "server_error"), .error(status: 500, message: "x", type: "server_error"))
        let breaker = CircuitBreaker(server: "fake", threshold: 3, cooldown: .seconds(60))
        let client = Self.client(server, breaker)
        for _ in 0..<5 { _ = try? await client.complete(Self.request) }
        #expect(!breaker.isOpen)
        #expect(server.requests.count == 5)
    }

    @Test("after the cooldown one probe goes out: a failure reopens for longer, an answer closes the breaker")
    func halfOpenProbe() async throws {
        let server = try FakeOpenAIServer()
        defer { server.stop() }
        server.enqueue(.status(502), .status(502), .status(502), .chat(content: "back"))
        let breaker = CircuitBreaker(server: "fake", threshold: 2, calls: 2, cooldown: .milliseconds(200))
        let client = Self.client(server, breaker)
        for _ in 0..<2 { _ = try? await client.complete(Self.request) }
        #expect(breaker.isOpen)
        _ = try? await client.complete(Self.request)
        #expect(server.requests.count == 2, "refused while open")

        try await Task.sleep(for: .milliseconds(250))
        _ = try? await client.complete(Self.request)  // the probe: 502
        #expect(server.requests.count == 3)
        guard case .open(let until) = breaker.state else { Issue.record("a failed probe left it \(breaker.state)"); return }
        #expect(until - .now > .milliseconds(250), "a failed probe doubles the cooldown")
        _ = try? await client.complete(Self.request)
        #expect(server.requests.count == 3)

        try await Task.sleep(for: .milliseconds(450))
        let answer = try await client.complete(Self.request)
        #expect(answer.response.firstChoice.message.content == "back")
        #expect(breaker.state == .closed && breaker.outage == nil)
    }

    @Test("5xx for half the calls while the others are answered never opens it; 20 calls in a row with no answer do")
    func partialOutageKeepsItClosed() {
        let breaker = CircuitBreaker(server: "fake")
        for round in 0..<200 {
            // A failing call's four attempts; after every 19th, an answer to another call.
            let call = breaker.call()
            for _ in 0..<4 { breaker.failed("HTTP 503", kind: .answer, call: call, probe: false) }
            if round % 19 == 18 { breaker.succeeded() }
            #expect(!breaker.isOpen, "round \(round)")
        }
        breaker.succeeded()
        for n in 1...CircuitBreaker.defaultCalls {
            #expect(!breaker.isOpen, "after \(n - 1) failing calls")
            let call = breaker.call()
            breaker.failed("HTTP 503", kind: .answer, call: call, probe: false)
        }
        #expect(breaker.isOpen, "20 calls in a row with no answer")
    }

    @Test("one call's retries never open it for 5xx; a call begun before the last answer is no evidence; the quiet period opens it")
    func callsAndQuietPeriod() {
        let start = ContinuousClock.now
        let breaker = CircuitBreaker(server: "fake", calls: 3, quietPeriod: .seconds(30))
        let old = breaker.call(now: start)
        breaker.succeeded(now: start + .seconds(1))
        for second in 2..<12 { breaker.failed("HTTP 500", kind: .answer, call: old, probe: false, now: start + .seconds(second)) }
        let one = breaker.call(now: start + .seconds(12))
        for second in 12..<20 { breaker.failed("timeout", kind: .answer, call: one, probe: false, now: start + .seconds(second)) }
        #expect(!breaker.isOpen, "18 failures of two calls, one begun before the last answer")
        breaker.failed("HTTP 500", kind: .answer, call: breaker.call(now: start + .seconds(20)), probe: false, now: start + .seconds(20))
        #expect(!breaker.isOpen)
        breaker.failed("HTTP 500", kind: .answer, call: old, probe: false, now: start + .seconds(32))
        #expect(breaker.isOpen, "30 s of failures with no answer")
    }

    @Test("failures to connect open it after threshold attempts whatever the calls: nothing reached the server")
    func connectionFailuresOpenAtOnce() {
        let breaker = CircuitBreaker(server: "fake")
        let call = breaker.call()
        for _ in 0..<4 { breaker.failed("connection refused", kind: .connection, call: call, probe: false) }
        #expect(!breaker.isOpen, "one call's own retries")
        breaker.failed("connection refused", kind: .connection, call: breaker.call(), probe: false)
        #expect(breaker.isOpen)
    }

    @Test("one breaker per server in the process: configurations of the same base URL share it")
    func sharedPerServer() {
        let a = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:9/v1")!)
        let b = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:9/v1/")!)
        let c = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:10/v1")!)
        #expect(a.circuitBreaker === b.circuitBreaker)
        #expect(a.circuitBreaker !== c.circuitBreaker)
    }
}
