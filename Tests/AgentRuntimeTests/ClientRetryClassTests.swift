import AgentRuntime
import Foundation
import Core
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// Which failures are retried and how often, with the waits observed through the injectable sleep (no real time).
@Suite("Client: retry only what can change")
struct ClientRetryClassTests {
    /// A client whose waits are recorded instead of slept.
    func client(_ server: FakeOpenAIServer, timeout: Duration = .seconds(10), waits: NIOLockedValueBox<[Duration]>) -> OpenAIClient {
        server.client(apiKey: "sk-test", model: "m", timeout: timeout, retry: RetryPolicy.modelCalls(maxAttempts: 4), maxConcurrency: 8,
                      sleep: { wait in waits.withLockedValue { $0.append(wait) } })
    }

    @Test("a 500 is retried once, not until the attempts run out")
    func serverErrorOnce() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: 500, message: "boom", type: "server_error"), .error(status: 500, message: "boom", type: "server_error"),
                       .chat(content: "never reached"))
        let waits = NIOLockedValueBox<[Duration]>([])
        let error = await llmError { _ = try await client(server, waits: waits).complete(helloRequest) }
        #expect(server.requests.count == 2)
        #expect(error?.attempts == 2)
        #expect(waits.withLockedValue { $0.count } == 1)
    }

    @Test("a 400 that names the output format is retried once; another 400 not at all")
    func formatErrorOnce() async throws {
        let server = try FakeOpenAIServer()
        let format = "model produced output that does not match the expected format"
        server.enqueue(.error(status: 400, message: format), .error(status: 400, message: format), .chat(content: "never"))
        let waits = NIOLockedValueBox<[Duration]>([])
        _ = await llmError { _ = try await client(server, waits: waits).complete(helloRequest) }
        #expect(server.requests.count == 2)

        let other = try FakeOpenAIServer()
        other.enqueue(.error(status: 400, message: "messages: field required"), .chat(content: "never"))
        _ = await llmError { _ = try await client(other, waits: waits).complete(helloRequest) }
        #expect(other.requests.count == 1)
    }

    @Test("429, 502 and 503 are retried up to maxAttempts", arguments: [429, 502, 503])
    func transientRetried(status: Int) async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.status(status, body: "{}"), .status(status, body: "{}"), .status(status, body: "{}"), .chat(content: "ok"))
        let waits = NIOLockedValueBox<[Duration]>([])
        let result = try await client(server, waits: waits).complete(helloRequest)
        #expect(result.attempts == 4)
        #expect(waits.withLockedValue { $0.count } == 3)
    }

    @Test("a timed-out request is retried once, after a wait of half the timeout, and the error names the setting")
    func timeoutBacksOff() async throws {
        let server = try FakeOpenAIServer()
        server.setFallback { _ in .delay(3, then: .chat(content: "too late")) }
        defer { server.stop() }
        let waits = NIOLockedValueBox<[Duration]>([])
        let error = await llmError { _ = try await client(server, timeout: .milliseconds(400), waits: waits).complete(helloRequest) }
        #expect(error?.attempts == 2)
        guard case .timeout = error?.underlying else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        let recorded = waits.withLockedValue { $0 }
        #expect(recorded.count == 1)
        #expect((recorded.first ?? .zero) >= .milliseconds(200))
        #expect(error?.description.contains("OPENAI_TIMEOUT_SECONDS") == true)
    }

    @Test("settings: OPENAI_TIMEOUT_SECONDS, OPENAI_MAX_CONCURRENCY, OPENAI_RETRY_BUDGET_SECONDS, OPENAI_TOOLS_WITH_SCHEMA")
    func settingsFromEnvironment() throws {
        let local = try #require(try LLMConfiguration.fromEnvironment(["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"]))
        #expect(local.maxConcurrency == 1)
        #expect(local.toolsWithSchema == false)
        #expect(local.requestTimeout == .seconds(120))
        let openAI = try #require(try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": "sk-1"]))
        #expect(openAI.maxConcurrency == LLMConfiguration.openAIDefaultConcurrency && openAI.maxConcurrency >= 64 * 5)
        #expect(openAI.toolsWithSchema)
        #expect(openAI.requestTimeout == .seconds(60))
        let set = try #require(try LLMConfiguration.fromEnvironment([
            "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_TIMEOUT_SECONDS": "300", "OPENAI_MAX_CONCURRENCY": "4",
            "OPENAI_RETRY_BUDGET_SECONDS": "900", "OPENAI_TOOLS_WITH_SCHEMA": "true",
        ]))
        #expect(set.requestTimeout == .seconds(300))
        #expect(set.maxConcurrency == 4)
        #expect(set.retryPolicy.totalBudget == .seconds(900))
        #expect(set.toolsWithSchema)
        #expect(local.schemaBounds && !openAI.schemaBounds, "caps on the wire only for servers that build a grammar")
        #expect(!local.namedToolChoice && openAI.namedToolChoice)
        let flipped = try #require(try LLMConfiguration.fromEnvironment([
            "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_SCHEMA_BOUNDS": "false", "OPENAI_NAMED_TOOL_CHOICE": "yes",
        ]))
        #expect(!flipped.schemaBounds && flipped.namedToolChoice)
        #expect(throws: LLMSettingError.self) {
            try LLMConfiguration.fromEnvironment(["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_SCHEMA_BOUNDS": "maybe"])
        }
        #expect(throws: LLMSettingError.self) {
            try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": "sk-1", "OPENAI_TIMEOUT_SECONDS": "soon"])
        }
    }
}

/// The one line of requests per model server.
@Suite("ServerConcurrencyLimit: FIFO and bounded")
struct ServerConcurrencyLimitTests {
    @Test("waiters are served in the order they asked")
    func fifo() async throws {
        let limit = ServerConcurrencyLimit(limit: 1)
        try await limit.acquire()
        let order = NIOLockedValueBox<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(Task {
                try await limit.acquire()
                order.withLockedValue { $0.append(index) }
                await limit.release()
            })
            // Each waiter is in line before the next one asks.
            while await limit.waiting < index + 1 { await Task.yield() }
        }
        await limit.release()
        for task in tasks { try await task.value }
        #expect(order.withLockedValue { $0 } == [0, 1, 2, 3, 4])
        #expect(await limit.peakInFlight == 1)
    }

    @Test("a cancelled waiter leaves the line without taking a slot")
    func cancelledWaiter() async throws {
        let limit = ServerConcurrencyLimit(limit: 1)
        try await limit.acquire()
        let waiter = Task { try await limit.acquire() }
        while await limit.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await limit.release()
        try await limit.acquire()
        #expect(await limit.waiting == 0)
    }

    @Test("all of a client's concurrent requests stay within the server's limit")
    func clientBound() async throws {
        let server = try FakeOpenAIServer()
        server.setFallback { _ in .delay(0.2, then: .chat(content: "ok")) }
        defer { server.stop() }
        let limit = ServerConcurrencyLimit(limit: 2)
        let client = OpenAIClient(configuration: LLMConfiguration(apiKey: nil, baseURL: server.baseURL, defaultModel: "m"),
                                  concurrency: limit)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await client.complete(helloRequest) } }
            try await group.waitForAll()
        }
        #expect(server.requests.count == 6)
        #expect(await limit.peakInFlight == 2)
    }

    @Test("one limit per server URL for the whole process")
    func sharedPerServer() {
        let url = URL(string: "http://127.0.0.1:9/v1-shared-test")!
        #expect(ServerConcurrencyLimit.shared(for: url, limit: 3) === ServerConcurrencyLimit.shared(for: url, limit: 7))
        #expect(ServerConcurrencyLimit.shared(for: url, limit: 7).limit == 3)
    }
}
