import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

@Suite("Fake OpenAI server")
struct FakeServerTests {
    @Test("a chunked request body is reassembled, extensions and trailers included")
    func chunkedRequest() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "ok"))
        let payload = "{\"model\":\"m\",\"messages\":[]}"
        let first = String(payload.prefix(10)), rest = String(payload.dropFirst(10))
        let raw = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
            + String(first.utf8.count, radix: 16) + ";ext=1\r\n" + first + "\r\n"
            + String(rest.utf8.count, radix: 16) + "\r\n" + rest + "\r\n"
            + "0\r\nX-Trailer: yes\r\n\r\n"
        let response = try await RawHTTPExchange.exchange(port: server.port, raw).text
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Connection: close"))
        let recorded = try #require(server.requests.first)
        #expect(recorded.wasChunked)
        #expect(String(decoding: recorded.body, as: UTF8.self) == payload)
        #expect(recorded.json?["model"] == "m")
    }

    @Test("a streamed URLSession body (chunked by libcurl) arrives whole")
    func streamedBody() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "ok"))
        let payload = Data(ChatCompletionRequest(model: "m", messages: [.user(String(repeating: "x", count: 70_000))]).body().serialized().utf8)
        var request = URLRequest(url: server.baseURL.appendingPathComponent("chat/completions"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: payload)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // The client's transport sends Data bodies; this drives URLSession directly for the streamed case.
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try ChatCompletionResponse.decode(data).firstChoice.message.content == "ok")
        let recorded = try #require(server.requests.first)
        #expect(recorded.body == payload)
        #expect(recorded.wasChunked)
    }

    @Test("the fallback answers once the queue is empty; without one the server says the script ran out")
    func fallbackAndExhaustion() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "queued"))
        let client = makeClient(server, retry: .noRetries)
        #expect(try await client.complete(helloRequest).response.firstChoice.message.content == "queued")
        let error = await llmError { _ = try await client.complete(helloRequest) }
        guard case .http(500, let message, _) = error else {
            Issue.record("expected a 500, got \(String(describing: error))")
            return
        }
        #expect(message.contains("no scripted reply"))
        server.setFallback { request in .chat(content: "echo \(request.json?["messages"]?[1]?["content"]?.stringValue ?? "?")") }
        #expect(try await client.complete(helloRequest).response.firstChoice.message.content == "echo Hello")
        #expect(server.pendingReplies == 0)
    }

    @Test("stop() ends a connection waiting on a long delay")
    func stopDuringDelay() async throws {
        let server = try FakeOpenAIServer()
        // Far longer than the test can take, even when a saturated test run delays stop() by a minute or more.
        server.enqueue(.delay(600, then: .chat(content: "never")))
        let client = makeClient(server, timeout: .seconds(900), retry: .noRetries)
        let task = Task { try await client.complete(helloRequest) }
        #expect(await server.waitForRequests(count: 1).count == 1)
        server.stop()
        let error = await llmError { _ = try await task.value }
        guard case .transport = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
    }
}

@Suite("Fake OpenAI server lifetime")
struct FakeServerLifetimeTests {
    @Test("dropping the last reference stops the server")
    func deinitStops() async throws {
        var server: FakeOpenAIServer? = try FakeOpenAIServer()
        let baseURL = try #require(server?.baseURL)
        server = nil
        let client = OpenAIClient(configuration: LLMConfiguration(baseURL: baseURL, defaultModel: "m", retryPolicy: .noRetries))
        let error = await llmError { _ = try await client.complete(helloRequest) }
        guard case .transport = error else {
            Issue.record("expected a refused connection, got \(String(describing: error))")
            return
        }
    }
}
