import Foundation
import JSONKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A scripted OpenAI-compatible HTTP/1.1 server on 127.0.0.1, for testing the real client and transport end to end.
///
/// Replies come from a FIFO queue (`enqueue`), then from the fallback handler, else a 500 saying the script ran out.
/// Every request is recorded. One thread accepts, one thread serves each connection; `stop()` (or deinit) ends them.
public final class FakeOpenAIServer: Sendable {
    private let core: ServerCore

    /// Binds an ephemeral port and starts serving at once.
    public init(fallback: (@Sendable (RecordedRequest) -> ScriptedReply)? = nil) throws {
        core = try ServerCore(fallback: fallback)
    }

    /// The server's threads hold only the core, so dropping the last reference to the server stops it.
    deinit { core.stop() }

    public var port: UInt16 { core.port }
    /// `http://127.0.0.1:PORT/v1`, to use as the client's base URL.
    public var baseURL: URL { core.baseURL }

    /// Appends replies to the FIFO queue.
    public func enqueue(_ replies: ScriptedReply...) { core.enqueue(replies) }
    public func enqueue(_ replies: [ScriptedReply]) { core.enqueue(replies) }
    /// Answers requests once the queue is empty (e.g. replaying recorded answers keyed by the request).
    public func setFallback(_ handler: (@Sendable (RecordedRequest) -> ScriptedReply)?) { core.setFallback(handler) }
    /// Replies still queued.
    public var pendingReplies: Int { core.pendingReplies }
    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { core.requests }
    /// The Files and Batch endpoints (`/v1/files*`, `/v1/batches*`); other paths are answered as before.
    public var batches: FakeBatchEndpoints { core.batchEndpoints }

    /// Waits until at least `count` requests have arrived or `timeout` passes; returns what arrived.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(30)) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = requests
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return requests
    }

    /// Stops accepting, resets open connections and waits (bounded) for the server's threads. Idempotent.
    public func stop() { core.stop() }
}

/// The sockets, threads and script of one server.
private final class ServerCore: Sendable {
    let port: UInt16
    let baseURL: URL

    private struct State {
        var queue: [ScriptedReply] = []
        var fallback: (@Sendable (RecordedRequest) -> ScriptedReply)?
        var requests: [RecordedRequest] = []
        var stopped = false
        var openClients: Set<Int32> = []
    }

    private let state = Locked(State())
    let batchEndpoints = FakeBatchEndpoints()
    private let listenFD: Int32
    private let wakeFDs: (read: Int32, write: Int32)
    private let threads = DispatchGroup()

    init(fallback: (@Sendable (RecordedRequest) -> ScriptedReply)?) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FakeServerError("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw FakeServerError("bind/listen on 127.0.0.1 failed: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw FakeServerError("getsockname failed: errno \(errno)")
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw FakeServerError("pipe failed: errno \(errno)")
        }
        listenFD = fd
        wakeFDs = (pipeFDs[0], pipeFDs[1])
        port = UInt16(bigEndian: address.sin_port)
        baseURL = URL(string: "http://127.0.0.1:\(port)/v1")!
        state.withLock { $0.fallback = fallback }
        startThread { [self] in acceptLoop() }
    }

    func enqueue(_ replies: [ScriptedReply]) { state.withLock { $0.queue += replies } }
    func setFallback(_ handler: (@Sendable (RecordedRequest) -> ScriptedReply)?) { state.withLock { $0.fallback = handler } }
    var pendingReplies: Int { state.withLock { $0.queue.count } }
    var requests: [RecordedRequest] { state.withLock { $0.requests } }

    // MARK: Lifecycle

    func stop() {
        // Shut connections down under the lock: `serve` removes its fd under the same lock before closing it,
        // so no fd here can have been closed and reused for something else.
        let wasStopped = state.withLock { state -> Bool in
            defer { state.stopped = true }
            guard !state.stopped else { return true }
            for client in state.openClients { _ = shutdown(client, Int32(SHUT_RDWR)) }
            return false
        }
        guard !wasStopped else { return }
        var byte: UInt8 = 1
        _ = write(wakeFDs.write, &byte, 1)
        _ = threads.wait(timeout: .now() + 3)
        close(listenFD)
        close(wakeFDs.read)
        close(wakeFDs.write)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func acceptLoop() {
        while true {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || isStopped { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.openClients.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                return
            }
            startThread { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { _ = $0.openClients.remove(fd) }
            close(fd)
        }
        var connection = HTTPConnection(fd: fd)
        guard let parsed = try? connection.readRequest() else { return }
        let (recorded, reply) = record(parsed)
        var current = reply
        while true {
            if case .delay(let seconds, let then) = current {
                guard sleepUnlessStopped(seconds) else { return }
                current = then
            } else if case .held(let gate, let then) = current {
                gate.hold(recorded)
                while !gate.isOpen { guard sleepUnlessStopped(0.005) else { return } }
                current = then
            } else {
                break
            }
        }
        let model = recorded.json?["model"]?.stringValue ?? "fake-model"
        switch current.render(sequence: recorded.index, model: model) {
        case .reset:
            connection.reset()
        case .response(let status, var headers, let body):
            if headers.keys.first(where: { $0.lowercased() == "x-request-id" }) == nil { headers["x-request-id"] = "req_fake_\(recorded.index)" }
            try? connection.writeResponse(status: status, headers: headers, body: body)
            _ = shutdown(fd, Int32(SHUT_WR))
        }
    }

    /// Records the request and picks its reply under one lock, so arrival order and reply order agree.
    private func record(_ parsed: ParsedRequest) -> (RecordedRequest, ScriptedReply) {
        let json = try? JSONValue.parse(parsed.body)
        let now = ContinuousClock.now
        return state.withLock { state in
            let recorded = RecordedRequest(
                index: state.requests.count, method: parsed.method, path: parsed.path, headers: parsed.headers,
                body: parsed.body, json: json, wasChunked: parsed.wasChunked, receivedAt: now
            )
            state.requests.append(recorded)
            let reply: ScriptedReply
            if let routed = batchEndpoints.reply(to: recorded, chat: state.fallback) {
                reply = routed
            } else if !state.queue.isEmpty {
                reply = state.queue.removeFirst()
            } else if let fallback = state.fallback {
                reply = fallback(recorded)
            } else {
                reply = .error(status: 500, message: "FakeOpenAIServer: no scripted reply left for request #\(recorded.index)", type: "server_error")
            }
            return (recorded, reply)
        }
    }

    /// Sleeps in short slices so `stop()` is not held up by a long scripted delay. False if stopped meanwhile.
    private func sleepUnlessStopped(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if isStopped { return false }
            Thread.sleep(forTimeInterval: min(0.01, max(0, deadline.timeIntervalSinceNow)))
        }
        return !isStopped
    }
}

public struct FakeServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
