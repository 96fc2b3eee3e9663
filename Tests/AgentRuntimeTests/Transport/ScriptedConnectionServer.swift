import Foundation
import NIOConcurrencyHelpers
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback server scripted per connection and per request, for what the fake OpenAI server cannot do:
/// keep a connection alive, close an idle one, drop a reused one under a request, stream a chunked body.
final class ScriptedConnectionServer: Sendable {
    /// What the server does with one request on a connection.
    enum Step: Sendable {
        /// Answers 200 with `body` and keeps the connection open for the next step.
        case answerKeepAlive(String)
        /// Answers 200 with `body`, then closes the connection at once (the idle connection the client holds is dead).
        case answerThenClose(String)
        /// Reads the request and closes the connection without answering (a stale keep-alive connection).
        case closeOnRequest
        /// Answers 200 with a chunked body of `bytes` bytes and no Content-Length, then closes.
        case chunked(bytes: Int)
    }

    private let server: HTTPServer
    private let received: NIOLockedValueBox<[HTTPServerRequest]>

    var port: UInt16 { server.port }
    var baseURL: URL { server.url.appendingPathComponent("v1") }
    /// The requests a step answered, in arrival order.
    var requests: [HTTPServerRequest] { received.withLockedValue { $0 } }
    /// Connections accepted.
    var connections: Int { server.acceptedConnections }

    /// `scripts[i]` is what the (i+1)-th accepted connection does, one step per request it reads; a request past its
    /// connection's script is not recorded and closes the connection.
    init(scripts: [[Step]]) throws {
        let received = NIOLockedValueBox<[HTTPServerRequest]>([])
        self.received = received
        server = try HTTPServer { request in
            let script = scripts.indices.contains(request.connection - 1) ? scripts[request.connection - 1] : []
            guard script.indices.contains(request.indexOnConnection) else { return .close }
            received.withLockedValue { $0.append(request) }
            let json = [(name: "Content-Type", value: "application/json")]
            switch script[request.indexOnConnection] {
            case .answerKeepAlive(let body): return .response(status: 200, headers: json, body: Data(body.utf8))
            case .answerThenClose(let body): return .response(status: 200, headers: json, body: Data(body.utf8), close: true)
            case .closeOnRequest: return .close
            case .chunked(let bytes): return .chunked(status: 200, headers: json, body: Data(repeating: UInt8(ascii: "x"), count: bytes))
            }
        }
    }

    func stop() { server.stop() }

    /// Runs `body` with a loopback port that refuses connections: bound, so no other test can take it, but not listening.
    static func withRefusingPort<T>(_ body: (UInt16) async throws -> T) async throws -> T {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, ok else { throw CocoaError(.fileReadUnknown) }
        return try await body(UInt16(bigEndian: address.sin_port))
    }
}
