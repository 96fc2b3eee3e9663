import AgentRuntime
import Foundation
import JSONKit
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
    func chunkedRequest() throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "ok"))
        let payload = "{\"model\":\"m\",\"messages\":[]}"
        let first = String(payload.prefix(10)), rest = String(payload.dropFirst(10))
        let raw = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
            + String(first.utf8.count, radix: 16) + ";ext=1\r\n" + first + "\r\n"
            + String(rest.utf8.count, radix: 16) + "\r\n" + rest + "\r\n"
            + "0\r\nX-Trailer: yes\r\n\r\n"
        let response = try rawExchange(port: server.port, request: raw)
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
        server.enqueue(.delay(30, then: .chat(content: "never")))
        let client = makeClient(server, timeout: .seconds(60), retry: .noRetries)
        let task = Task { try await client.complete(helloRequest) }
        #expect(await server.waitForRequests(count: 1).count == 1)
        server.stop()
        let error = await llmError { _ = try await task.value }
        guard case .transport = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
    }

    /// Sends raw bytes over a fresh TCP connection and reads until the server closes it.
    private func rawExchange(port: UInt16, request: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[..<n]
        }
        return String(decoding: response, as: UTF8.self)
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
