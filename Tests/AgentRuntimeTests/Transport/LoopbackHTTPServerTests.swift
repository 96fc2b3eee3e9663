import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The loopback HTTP server: ordered requests per connection, the ways it fails on purpose")
struct LoopbackHTTPServerTests {
    @Test("two requests sent in one write on a kept-alive connection are answered in order, each numbered")
    func pipelinedInOrder() throws {
        let server = try LoopbackHTTPServer { request in
            .response(status: 200, body: Data("\(request.connection).\(request.indexOnConnection) \(request.uri)".utf8))
        }
        defer { server.stop() }
        let two = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (text, ending) = try RawConnection.exchange(port: server.port, two)
        #expect(ending == .closed)
        let first = try #require(text.range(of: "1.0 /a")), second = try #require(text.range(of: "1.1 /b"))
        #expect(first.lowerBound < second.lowerBound)
        #expect(text.contains("Connection: close"), "the answer to a request that asked to close says so")
        #expect(server.acceptedConnections == 1)
    }

    @Test("a reset reply is a RST, a close reply a FIN, and neither sends a byte")
    func resetAndClose() throws {
        let server = try LoopbackHTTPServer { request in request.uri == "/reset" ? .reset : .close }
        defer { server.stop() }
        let reset = try RawConnection.exchange(port: server.port, "GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(reset.text.isEmpty && reset.ending == .reset)
        let closed = try RawConnection.exchange(port: server.port, "GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(closed.text.isEmpty && closed.ending == .closed)
    }

    @Test("a chunked reply has no Content-Length and its body arrives in chunks; Expect: 100-continue is answered first")
    func chunkedAndContinue() throws {
        let server = try LoopbackHTTPServer { request in
            .chunked(status: 200, body: request.body + request.body, chunkSize: 3)
        }
        defer { server.stop() }
        let (text, ending) = try RawConnection.exchange(
            port: server.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\nabcd")
        #expect(ending == .closed)
        #expect(text.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(!text.lowercased().contains("content-length"))
        #expect(text.hasSuffix("\r\n\r\n3\r\nabc\r\n3\r\ndab\r\n2\r\ncd\r\n0\r\n\r\n"))
    }

    @Test("stop() ends a reply waiting on a delay, and the port then refuses connections")
    func stopEndsDelay() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let server = try LoopbackHTTPServer { _ in
            arrived.yield()
            return .delayed(.seconds(30), then: .response(status: 200))
        }
        let port = server.port
        let pending = Task.detached { try RawConnection.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") }
        for await _ in arrivals { break }
        server.stop()
        let (text, ending) = try await pending.value
        #expect(text.isEmpty && ending == .closed)
        #expect(throws: RawConnection.Refused.self) { try RawConnection.exchange(port: port, "GET / HTTP/1.1\r\n\r\n") }
    }
}

/// One blocking TCP exchange: sends bytes, reads until the server ends the connection, and says how it ended.
enum RawConnection {
    enum Ending: Equatable { case closed, reset, timedOut }
    struct Refused: Error {}

    static func exchange(port: UInt16, _ request: String) throws -> (text: String, ending: Ending) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        // Far above a loaded machine's stalls (a full parallel test run has stalled 60 s at its start); each exchange ends
        // as soon as the server closes or answers.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Refused() }
        let bytes = Array(request.utf8)
        try #require(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { response += buffer[..<n]; continue }
            let ending: Ending = n == 0 ? .closed : errno == ECONNRESET ? .reset : .timedOut
            return (String(decoding: response, as: UTF8.self), ending)
        }
    }
}
