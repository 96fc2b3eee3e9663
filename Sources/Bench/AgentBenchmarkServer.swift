import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scripted OpenAI-compatible server of the agent and token benchmarks, on 127.0.0.1 only: it answers
/// `POST …/chat/completions` with `AgentBenchmarkScript` after a fixed latency. Unlike `BenchOpenAIServer` (the scan
/// benchmark's, which answers only extractor requests and bills the raw body) it scripts tool calls and bills by
/// `TokenCostRule`, and it keeps connections alive, as both the Swift and the Python clients expect. One thread
/// per connection.
public final class AgentBenchmarkServer: Sendable {
    public let port: UInt16
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    public let steps: Int
    private let latency: Duration
    private let listenFD: Int32
    private let stopped = BenchFlag()
    private let connections = OpenConnections()
    /// Emulated prefix caching across every request this server answers (`cached_tokens` in each answer's usage).
    /// Opt-in: hashing every prompt costs the server about 0.15 ms a request, which `bench agent` would count as the
    /// agent's time (a 6-step run went from about 3 to 4 ms).
    private let cache: PrefixCacheEmulator?

    /// - Parameters:
    ///   - port: 0 picks a free port (read it back from `port`).
    ///   - steps: model calls per agent conversation: `steps - 1` tool rounds, then the answer.
    ///   - emulatePrefixCache: report `cached_tokens` as OpenAI's prefix caching would (`PrefixCacheEmulator`).
    public init(port: UInt16 = 0, latency: Duration = .zero, steps: Int, emulatePrefixCache: Bool = false) throws {
        guard steps >= 1 else { throw BenchError("bench server: --steps must be at least 1, not \(steps)") }
        guard latency >= .zero else { throw BenchError("bench server: the latency must not be negative") }
        self.steps = steps
        self.latency = latency
        self.cache = emulatePrefixCache ? PrefixCacheEmulator() : nil
        (listenFD, self.port) = try LoopbackListener.open(port: port, backlog: 512)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting and closes the connections clients keep open.
    public func stop() {
        guard stopped.set() else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        connections.shutdownAll()
    }

    private func acceptLoop() {
        LoopbackListener.acceptLoop(listenFD, stopped: stopped, connections: connections) { [self] in serve($0) }
    }

    /// Answers requests on one connection until the client closes it or asks to.
    private func serve(_ fd: Int32) {
        defer {
            connections.remove(fd)
            close(fd)
        }
        var reader = HTTPRequestReader(fd: fd)
        while let request = reader.next() {
            if latency > .zero {
                Thread.sleep(forTimeInterval: Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18)
            }
            let (status, body) = request.path.hasSuffix("/chat/completions") && request.method == "POST"
                ? AgentBenchmarkScript.completion(for: request.body, steps: steps, cache: cache)
                : (404, AgentBenchmarkScript.errorBody("only POST …/chat/completions is served, not \(request.method) \(request.path)"))
            guard write(status: status, body: body, close: request.wantsClose, to: fd), !request.wantsClose else { return }
        }
    }

    private func write(status: Int, body: Data, close: Bool, to fd: Int32) -> Bool {
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found", 411: "Length Required"][status] ?? "Error"
        var bytes = Data(("HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n").utf8)
        bytes.append(body)
        return Self.sendAll(bytes, to: fd)
    }

    static func sendAll(_ bytes: Data, to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }
}

/// Client sockets still open, so `stop()` can end the threads waiting on them.
final class OpenConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var fds: Set<Int32> = []
    private var closed = false

    /// False once the server stopped: the caller closes the socket instead.
    func insert(_ fd: Int32) -> Bool { lock.withLock { closed ? false : fds.insert(fd).inserted } }
    func remove(_ fd: Int32) { _ = lock.withLock { fds.remove(fd) } }

    func shutdownAll() {
        lock.withLock {
            closed = true
            for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}

/// Reads HTTP/1.1 requests with a `Content-Length` body, one after another, from a kept-alive connection.
struct HTTPRequestReader {
    struct Request {
        let method: String
        let path: String
        let body: Data
        let wantsClose: Bool
    }

    let fd: Int32
    private var buffer = Data()
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(fd: Int32) { self.fd = fd }

    /// The next request; nil when the client closed the connection or sent something this reader does not handle
    /// (after answering 411 for a body without `Content-Length`).
    mutating func next() -> Request? {
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let end = buffer.range(of: separator) {
                let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
                let requestLine = lines.first?.split(separator: " ") ?? []
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                    _ = AgentBenchmarkServer.sendAll(Data(("HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").utf8), to: fd)
                    return nil
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                // libcurl (URLSession on Linux) holds large bodies back for up to a second until it hears this.
                if headers["expect"]?.lowercased() == "100-continue",
                   !AgentBenchmarkServer.sendAll(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: fd) {
                    return nil
                }
                while buffer.count - (end.upperBound - buffer.startIndex) < length {
                    guard fill() else { return nil }
                }
                let bodyStart = end.upperBound
                let body = Data(buffer[bodyStart..<(bodyStart + length)])
                buffer = Data(buffer[(bodyStart + length)...])
                return Request(
                    method: requestLine.first.map(String.init) ?? "",
                    path: requestLine.count > 1 ? String(requestLine[1]) : "",
                    body: body,
                    wantsClose: headers["connection"]?.lowercased() == "close")
            }
            guard fill() else { return nil }
        }
    }

    private mutating func fill() -> Bool {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }
}
