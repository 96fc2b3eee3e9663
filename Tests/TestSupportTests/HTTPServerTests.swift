import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The HTTP server: ordered requests per connection, the ways it fails on purpose, its bounds")
struct HTTPServerTests {
    @Test("two requests sent in one write on a kept-alive connection are answered in order, each numbered")
    func pipelinedInOrder() async throws {
        let server = try HTTPServer { request in
            .response(status: 200, body: Data("\(request.connection).\(request.indexOnConnection) \(request.uri)".utf8))
        }
        defer { server.stop() }
        let two = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (text, ending) = try await RawHTTPExchange.exchange(port: server.port, two)
        #expect(ending == .closed)
        let first = try #require(text.range(of: "1.0 /a")), second = try #require(text.range(of: "1.1 /b"))
        #expect(first.lowerBound < second.lowerBound)
        #expect(text.contains("Connection: close"), "the answer to a request that asked to close says so")
        #expect(server.acceptedConnections == 1)
    }

    @Test("a reset reply is a RST, a close reply a FIN, and neither sends a byte")
    func resetAndClose() async throws {
        let server = try HTTPServer { request in request.uri == "/reset" ? .reset : .close }
        defer { server.stop() }
        let reset = try await RawHTTPExchange.exchange(port: server.port, "GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(reset.text.isEmpty && reset.ending == .reset)
        let closed = try await RawHTTPExchange.exchange(port: server.port, "GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(closed.text.isEmpty && closed.ending == .closed)
    }

    @Test("a chunked reply has no Content-Length and its body arrives in chunks; Expect: 100-continue is answered first")
    func chunkedAndContinue() async throws {
        let server = try HTTPServer { request in
            .chunked(status: 200, body: request.body + request.body, chunkSize: 3)
        }
        defer { server.stop() }
        let (text, ending) = try await RawHTTPExchange.exchange(
            port: server.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\nabcd")
        #expect(ending == .closed)
        #expect(text.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(!text.lowercased().contains("content-length"))
        #expect(text.hasSuffix("\r\n\r\n3\r\nabc\r\n3\r\ndab\r\n2\r\ncd\r\n0\r\n\r\n"))
    }

    @Test("stop() ends a reply waiting on a delay, and the port then refuses connections")
    func stopEndsDelay() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let server = try HTTPServer { _ in
            arrived.yield()
            return .delayed(.seconds(30), then: .response(status: 200))
        }
        let port = server.port
        let pending = Task { try await RawHTTPExchange.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") }
        for await _ in arrivals { break }
        server.stop()
        let (text, ending) = try await pending.value
        #expect(text.isEmpty && ending == .closed)
        #expect(throws: RawHTTPExchange.Refused.self) { try RawHTTPExchange.exchange(port: port, "GET / HTTP/1.1\r\n\r\n") }
    }

    @Test("HEAD is answered with GET's headers and no body; the next request on the connection is read cleanly")
    func headHasNoBody() async throws {
        let server = try HTTPServer { request in .response(status: 200, body: Data("body of \(request.uri)".utf8)) }
        defer { server.stop() }
        let two = "HEAD /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (text, ending) = try await RawHTTPExchange.exchange(port: server.port, two)
        #expect(ending == .closed)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\n"), "\(text)")
        #expect(!text.contains("body of /a"))
        #expect(text.hasSuffix("body of /b"))
    }

    @Test("a body over the limit is answered 413 without reaching the handler, and the connection closes")
    func bodyOverLimit() async throws {
        let handled = NIOLockedValueBox(0)
        var options = HTTPServer.Options()
        options.maxBodyBytes = 8
        let server = try HTTPServer(options) { _ in
            handled.withLockedValue { $0 += 1 }
            return .response(status: 200)
        }
        defer { server.stop() }
        let (small, _) = try await RawHTTPExchange.exchange(
            port: server.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nConnection: close\r\n\r\n12345678")
        #expect(small.hasPrefix("HTTP/1.1 200 OK"))
        let large = String(repeating: "x", count: 64 * 1024)
        let (text, ending) = try await RawHTTPExchange.exchange(
            port: server.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(large.utf8.count)\r\n\r\n\(large)")
        #expect(text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), "\(text.prefix(80))")
        #expect(text.contains("Connection: close"))
        #expect(ending == .closed, "the client reads the whole 413 before the connection ends, not a reset")
        #expect(handled.withLockedValue { $0 } == 1)
    }

    @Test("with an idle timeout a quiet kept-alive connection is closed, but a slow answer is not cut off")
    func idleTimeoutSparesSlowAnswers() async throws {
        var options = HTTPServer.Options()
        options.idleTimeout = .milliseconds(300)
        let server = try HTTPServer(options) { request in
            .response(status: 200, body: Data(request.uri.utf8)).after(request.uri == "/slow" ? .seconds(1) : .zero)
        }
        defer { server.stop() }
        let port = server.port
        // Kept alive: after the answer the client says nothing more, and the server closes it.
        let quiet = try await RawHTTPExchange.exchange(port: port, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(quiet.ending == .closed)
        #expect(quiet.text.hasSuffix("/fast"))
        // The answer takes three idle timeouts to come; it still comes, then the quiet connection closes.
        let slow = try await RawHTTPExchange.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(slow.ending == .closed)
        #expect(slow.text.hasSuffix("/slow"))
    }

    @Test("shutdown stops accepting, lets the answer under way finish, and closes what outlasts the grace period")
    func gracefulShutdown() async throws {
        let (arrivals, arrived) = AsyncStream<String>.makeStream()
        let server = try HTTPServer { request in
            arrived.yield(request.uri)
            return .response(status: 200, body: Data(request.uri.utf8), close: true).after(request.uri == "/never" ? .seconds(600) : .seconds(1))
        }
        let port = server.port
        let answered = Task { try await RawHTTPExchange.exchange(port: port, "GET /soon HTTP/1.1\r\nHost: x\r\n\r\n") }
        let cut = Task { try await RawHTTPExchange.exchange(port: port, "GET /never HTTP/1.1\r\nHost: x\r\n\r\n") }
        var seen = Set<String>()
        for await uri in arrivals {
            seen.insert(uri)
            if seen.count == 2 { break }
        }
        let clock = ContinuousClock()
        let started = clock.now
        await server.shutdown(gracePeriod: .seconds(3))
        let took = clock.now - started
        #expect(throws: RawHTTPExchange.Refused.self) { try RawHTTPExchange.exchange(port: port, "GET / HTTP/1.1\r\n\r\n") }
        let soon = try await answered.value
        #expect(soon.text.hasPrefix("HTTP/1.1 200 OK") && soon.text.hasSuffix("/soon"))
        let never = try await cut.value
        #expect(never.text.isEmpty && never.ending == .closed)
        #expect(took >= .seconds(3), "shutdown waited for the grace period while /never was open")
        #expect(took < .seconds(120))
        #expect(server.openConnections == 0)
    }
}
