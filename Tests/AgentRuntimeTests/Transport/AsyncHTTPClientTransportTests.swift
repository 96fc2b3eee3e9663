import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

@Suite("The AsyncHTTPClient transport: connection reuse, dead connections, body cap, exact bytes, shutdown")
struct AsyncHTTPClientTransportTests {
    static let answer = #"{"ok":true}"#

    /// A transport of its own, shut down after `body`, so a test's pool cannot serve another test's requests. Its
    /// idle connections are kept for 10 minutes instead of 30 s, and it waits 10 minutes to connect instead of 10 s:
    /// these tests are about which connection a request uses, and in the full parallel run on 2 cores a test's next
    /// request can leave more than 30 s after the one before (the cooperative pool is saturated), when the pool would
    /// already have closed the idle connection itself or given up a connection the server had accepted (which
    /// shifts the server's per-connection scripts).
    private func withTransport<T>(_ options: AsyncHTTPClientTransport.Options = .init(),
                                  _ body: (AsyncHTTPClientTransport) async throws -> T) async throws -> T {
        var options = options
        options.idleTimeout = .seconds(600)
        options.connectTimeout = .seconds(600)
        let transport = AsyncHTTPClientTransport(options: options)
        do {
            let value = try await body(transport)
            try await transport.shutdown()
            return value
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    private func post(_ server: ScriptedConnectionServer, body: String = "{}", timeout: Duration = .seconds(300)) -> HTTPRequest {
        HTTPRequest(url: server.baseURL.appendingPathComponent("chat/completions"),
                    headers: ["Content-Type": "application/json"], body: Data(body.utf8), timeout: timeout)
    }

    @Test("sequential requests to one host reuse one keep-alive connection")
    func keepAliveReuse() async throws {
        let server = try ScriptedConnectionServer(scripts: [[.answerKeepAlive(Self.answer), .answerKeepAlive(Self.answer), .answerKeepAlive(Self.answer)]])
        defer { server.stop() }
        try await withTransport { transport in
            for _ in 0..<3 {
                let response = try await transport.send(post(server))
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == Self.answer)
            }
        }
        #expect(server.connections == 1)
        #expect(server.requests.count == 3)
    }

    @Test("a keep-alive connection the server drops under the next request is retried at once on a fresh one")
    func staleConnectionRetried() async throws {
        // The first connection answers once, then closes when the second request arrives on it, as a server does
        // that timed the idle connection out just as the request was sent. Without the retry this request fails.
        let server = try ScriptedConnectionServer(scripts: [[.answerKeepAlive(Self.answer), .closeOnRequest], [.answerKeepAlive(Self.answer)]])
        defer { server.stop() }
        try await withTransport { transport in
            let first = try await transport.send(post(server, body: #"{"n":1}"#))
            #expect(first.status == 200)
            let second = try await transport.send(post(server, body: #"{"n":2}"#))
            #expect(second.status == 200)
            #expect(String(decoding: second.body, as: UTF8.self) == Self.answer)
        }
        let requests = server.requests
        #expect(server.connections == 2)
        #expect(requests.map(\.connection) == [1, 1, 2])
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":2}"#])
    }

    @Test("a keep-alive connection the server closed while idle is replaced, and the request succeeds")
    func idleConnectionClosed() async throws {
        let server = try ScriptedConnectionServer(scripts: [[.answerThenClose(Self.answer)], [.answerKeepAlive(Self.answer)]])
        defer { server.stop() }
        try await withTransport { transport in
            let first = try await transport.send(post(server))
            let second = try await transport.send(post(server))
            #expect(first.status == 200 && second.status == 200)
        }
        #expect(server.connections == 2)
        #expect(server.requests.count == 2)
    }

    @Test("a kept-alive connection dropped under a request gets one fresh retry, and a second drop fails the request")
    func droppedTwiceFails() async throws {
        let server = try ScriptedConnectionServer(scripts: [[.answerKeepAlive(Self.answer), .closeOnRequest], [.closeOnRequest], [.answerKeepAlive(Self.answer)]])
        defer { server.stop() }
        let third = try await withTransport { transport in
            _ = try await transport.send(post(server))
            do {
                _ = try await transport.send(post(server))
                Issue.record("expected the second request to fail")
            } catch let error as TransportError {
                guard case .connectionFailed = error else { Issue.record("expected connectionFailed, got \(error)"); return 0 }
            }
            return try await transport.send(post(server)).status
        }
        // Request 2 went out twice (kept-alive connection 1, then fresh connection 2, not retried again); request 3 on 3.
        #expect(third == 200)
        #expect(server.requests.map(\.connection) == [1, 1, 2, 3])
    }

    @Test("a body with a Content-Length above the cap fails with responseTooLarge")
    func contentLengthOverCap() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.raw(Data(repeating: UInt8(ascii: "a"), count: 200_000)))
        var options = AsyncHTTPClientTransport.Options()
        options.maxResponseBytes = 64 * 1024
        try await withTransport(options) { transport in
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("chat/completions"), body: Data("{}".utf8), timeout: .seconds(10))
            await #expect(throws: TransportError.responseTooLarge(limit: 64 * 1024)) { _ = try await transport.send(request) }
        }
    }

    @Test("the client does not retry an oversized answer: it fails at once as undecodable")
    func oversizedAnswerIsNotRetried() async throws {
        let server = try FakeOpenAIServer()
        for _ in 0..<3 { server.enqueue(.raw(Data(repeating: UInt8(ascii: "a"), count: 200_000))) }
        var options = AsyncHTTPClientTransport.Options()
        options.maxResponseBytes = 64 * 1024
        try await withTransport(options) { transport in
            let client = server.client(apiKey: "sk-test-key", model: "gpt-test",
                                       retry: RetryPolicy.modelCalls(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10)),
                                       transport: transport)
            do {
                _ = try await client.complete(ChatCompletionRequest(messages: [.user("hi")]))
                Issue.record("an oversized answer was accepted")
            } catch let error as LLMError {
                guard case .decoding(let why, _) = error else { Issue.record("expected .decoding, got \(error)"); return }
                #expect(why.contains("larger than the limit"))
            }
            #expect(server.requests.count == 1)
        }
    }

    @Test("a chunked body that grows past the cap fails with responseTooLarge; a request may raise the cap")
    func chunkedOverCap() async throws {
        let server = try ScriptedConnectionServer(scripts: [[.chunked(bytes: 300_000)], [.chunked(bytes: 300_000)]])
        defer { server.stop() }
        var options = AsyncHTTPClientTransport.Options()
        options.maxResponseBytes = 100_000
        try await withTransport(options) { transport in
            await #expect(throws: TransportError.responseTooLarge(limit: 100_000)) { _ = try await transport.send(post(server)) }
            var raised = post(server)
            raised.maxResponseBytes = 1_000_000
            let response = try await transport.send(raised)
            #expect(response.body.count == 300_000)
        }
    }

    @Test("the request goes out with exactly the client's method, path, headers and body bytes")
    func exactBytes() async throws {
        let server = try ScriptedConnectionServer(scripts: [[.answerKeepAlive(Self.answer)]])
        defer { server.stop() }
        let body = #"{"model":"m","messages":[{"role":"user","content":"héllo \"q\""}]}"#
        let request = HTTPRequest(
            url: server.baseURL.appendingPathComponent("chat/completions"),
            headers: ["Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer sk-test"],
            body: Data(body.utf8), timeout: .seconds(10))
        _ = try await withTransport { try await $0.send(request) }
        let received = try #require(server.requests.first)
        #expect(received.requestLine == "POST /v1/chat/completions HTTP/1.1")
        #expect(received.body == Data(body.utf8))
        let headers = Dictionary(received.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(received.headers.count == headers.count, "no header sent twice")
        #expect(headers == [
            "content-type": "application/json", "accept": "application/json", "authorization": "Bearer sk-test",
            "host": "127.0.0.1:\(server.port)", "content-length": "\(body.utf8.count)",
        ])
    }

    @Test("a refused connection is a connection failure that names no header")
    func refused() async throws {
        try await ScriptedConnectionServer.withRefusingPort { port in
            let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/chat/completions")!,
                                      headers: ["Authorization": "Bearer sk-SECRET-refused"], body: Data("{}".utf8), timeout: .seconds(5))
            try await withTransport { transport in
                do {
                    _ = try await transport.send(request)
                    Issue.record("expected a failure")
                } catch let error as TransportError {
                    guard case .connectionFailed = error else {
                        Issue.record("expected connectionFailed, got \(error)")
                        return
                    }
                    #expect(!error.description.contains("sk-SECRET"))
                }
            }
        }
    }

    @Test("an answer slower than the timeout fails with exactly that timeout")
    func exactTimeout() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.delay(5, then: .chat(content: "late")))
        try await withTransport { transport in
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("chat/completions"), body: Data("{}".utf8),
                                      timeout: .milliseconds(250))
            await #expect(throws: TransportError.timedOut(.milliseconds(250))) { _ = try await transport.send(request) }
        }
    }

    @Test("a transport that was shut down refuses requests instead of hanging")
    func afterShutdown() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "hi"))
        let transport = AsyncHTTPClientTransport()
        try await transport.shutdown()
        let request = HTTPRequest(url: server.baseURL.appendingPathComponent("chat/completions"), body: Data("{}".utf8), timeout: .seconds(5))
        await #expect(throws: (any Error).self) { _ = try await transport.send(request) }
    }
}
