import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP/1.1 server scripted per connection and per request, for what the fake OpenAI server cannot do:
/// keep a connection alive, close an idle one, drop a reused one under a request, stream a chunked body.
final class LoopbackHTTPServer: @unchecked Sendable {
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

    /// One request as it arrived: the head's lines and the body's bytes.
    struct Received: Sendable {
        var requestLine: String
        var headers: [(name: String, value: String)]
        var body: Data
        var connection: Int
    }

    let port: UInt16
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    private let listenFD: Int32
    private let lock = NSLock()
    private var scripts: [[Step]]
    private var received: [Received] = []
    private var accepted = 0

    /// `scripts[i]` is what the i-th accepted connection does, one step per request it reads.
    init(scripts: [[Step]]) throws {
        self.scripts = scripts
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, ok else { throw CocoaError(.fileReadUnknown) }
        listenFD = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    private var stopped = false

    /// Stops accepting; the accept loop then closes the socket. Only the first call touches the descriptor: after
    /// the close its number may belong to another test's socket.
    func stop() {
        guard lock.withLock({ defer { stopped = true }; return !stopped }) else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
    }

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

    var requests: [Received] { lock.withLock { received } }
    var connections: Int { lock.withLock { accepted } }

    private func acceptLoop() {
        defer { close(listenFD) }
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let (index, script): (Int, [Step]) = lock.withLock {
                accepted += 1
                return (accepted, scripts.isEmpty ? [] : scripts.removeFirst())
            }
            Thread { [self] in serve(client, connection: index, script: script) }.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int, script: [Step]) {
        defer { close(fd) }
        var buffer = Data()
        for step in script {
            guard let request = readRequest(fd, buffer: &buffer, connection: connection) else { return }
            lock.withLock { received.append(request) }
            switch step {
            case .answerKeepAlive(let body):
                write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            case .answerThenClose(let body):
                write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                return
            case .closeOnRequest:
                return
            case .chunked(let bytes):
                write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = String(repeating: "x", count: 4096)
                var sent = 0
                while sent < bytes {
                    let size = min(chunk.count, bytes - sent)
                    guard write(fd, String(size, radix: 16) + "\r\n" + chunk.prefix(size) + "\r\n") else { return }
                    sent += size
                }
                write(fd, "0\r\n\r\n")
                return
            }
        }
    }

    @discardableResult
    private func write(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    private func readRequest(_ fd: Int32, buffer: inout Data, connection: Int) -> Received? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let end = buffer.range(of: separator)!
        let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count - end.upperBound < length {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let body = Data(buffer[end.upperBound..<(end.upperBound + length)])
        buffer = Data(buffer[(end.upperBound + length)...])
        return Received(requestLine: lines.first ?? "", headers: headers, body: body, connection: connection)
    }
}
