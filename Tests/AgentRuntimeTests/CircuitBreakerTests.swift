import AgentRuntime
import Foundation
import Testing
import TestSupport

@Suite("Circuit breaker per model server")
struct CircuitBreakerTests {
    static let request = ChatCompletionRequest(model: "m", messages: [.user("hello")])

    static func client(_ server: FakeOpenAIServer, _ breaker: CircuitBreaker, attempts: Int = 1) -> OpenAIClient {
        server.client(retry: FakeOpenAIServer.quickRetries(attempts), breaker: breaker)
    }

    @Test("after threshold 5xx answers in a row the breaker opens and later calls are refused unsent")
    func opensAfterThreshold() async throws {
        let server = try FakeOpenAIServer { _ in .error(status: 503, message: "overloaded", type: "server_error") }
        defer { server.stop() }
        let breaker = CircuitBreaker(server: "fake", threshold: 3, cooldown: .seconds(60))
        let client = Self.client(server, breaker)
        for _ in 0..<3 { await #expect(throws: LLMError.self) { try await client.complete(Self.request) } }
        #expect(breaker.isOpen)
        #expect(server.requests.count == 3)
        do {
            _ = try await client.complete(Self.request)
            Issue.record("an open breaker let a call through")
        } catch let error as LLMError {
            let outage = try #require(error.outage)
            #expect(outage.failures == 3 && outage.lastError.contains("503"), "\(outage)")
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
        let breaker = CircuitBreaker(server: "fake", threshold: 2, cooldown: .milliseconds(200))
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

    @Test("one breaker per server in the process: configurations of the same base URL share it")
    func sharedPerServer() {
        let a = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:9/v1")!)
        let b = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:9/v1/")!)
        let c = LLMConfiguration(baseURL: URL(string: "http://127.0.0.1:10/v1")!)
        #expect(a.circuitBreaker === b.circuitBreaker)
        #expect(a.circuitBreaker !== c.circuitBreaker)
    }
}
