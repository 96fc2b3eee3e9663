package import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 for tests and benchmarks: every request, read whole, goes to an async handler
/// whose `LoopbackReply` says what to send back, or how to fail (delay, close, reset, chunked body).
///
/// SwiftNIO does the socket work on one event-loop thread of the server's own, so a server costs no thread per
/// connection and a delayed reply waits on a timer. That thread is named `loopback-http`, apart from the
/// `NIO-ELT` threads of the HTTP client a benchmark measures, and `cpuSeconds` reads its CPU time.
/// Requests on one connection are handled one after another; connections are handled concurrently.
package final class LoopbackHTTPServer: Sendable {
    package typealias Handler = @Sendable (LoopbackRequest) async -> LoopbackReply

    /// The largest request body read; a larger one closes the connection without an answer.
    package static let maxBodyBytes = 64 * 1024 * 1024

    package let port: UInt16
    /// `http://127.0.0.1:PORT`.
    package var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let core: ServerCore
    private let listener: any Channel

    /// Binds 127.0.0.1:`port` (0 picks a free port; read it back from `port`) and starts serving at once.
    package init(port: UInt16 = 0, handler: @escaping Handler) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let cpuClock = try group.next().submit { LoopThread.prepare() }.wait()
            let core = ServerCore(group: group, cpuClock: cpuClock, handler: handler)
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture(withResultOf: {
                        guard let number = core.admit(channel) else { throw ChannelError.ioOnClosedChannel }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
                        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(core: core, connection: number))
                    })
                }
                .bind(host: "127.0.0.1", port: Int(port))
                .wait()
            self.core = core
            self.port = UInt16(listener.localAddress?.port ?? 0)
        } catch {
            group.shutdownGracefully { _ in }
            let inUse = (error as? IOError)?.errnoCode == EADDRINUSE
            throw LoopbackHTTPError(description: "cannot listen on 127.0.0.1:\(port)\(inUse ? " (the port is in use)" : ""): \(error)")
        }
    }

    /// A server's threads hold only its core, so dropping the last reference stops it.
    deinit { stop() }

    /// Connections accepted so far.
    package var acceptedConnections: Int { core.acceptedConnections }

    /// CPU seconds (user and system) the server's event-loop thread has used so far; frozen once the server stops.
    /// The handlers run on that thread too (`LoopTaskExecutor`).
    package var cpuSeconds: Double { core.cpuSeconds }

    /// Stops accepting (the port refuses connections when this returns), closes every open connection and cancels
    /// the handlers still running. The event-loop thread ends once the last handler returns. Idempotent.
    package func stop() {
        guard let open = core.stop() else { return }
        let closed = listener.close()
        for channel in open { channel.close(promise: nil) }
        if !listener.eventLoop.inEventLoop { _ = try? closed.wait() }
        core.releaseGroupIfIdle()
    }
}

/// Why a loopback server could not start.
package struct LoopbackHTTPError: Error, CustomStringConvertible {
    package let description: String
}

/// The state a server shares with its connections' handlers and running handler tasks.
final class ServerCore: Sendable {
    private struct State {
        var stopped = false
        var accepted = 0
        var open: [ObjectIdentifier: any Channel] = [:]
        var running = 0
        var groupReleased = false
        var finalCPUSeconds = 0.0
    }

    let handler: LoopbackHTTPServer.Handler
    private let group: MultiThreadedEventLoopGroup
    private let cpuClock: clockid_t
    private let state = NIOLockedValueBox(State())

    init(group: MultiThreadedEventLoopGroup, cpuClock: clockid_t, handler: @escaping LoopbackHTTPServer.Handler) {
        self.group = group
        self.cpuClock = cpuClock
        self.handler = handler
    }

    var acceptedConnections: Int { state.withLockedValue { $0.accepted } }

    var cpuSeconds: Double {
        // Read under the lock: once stopped the thread may be gone, and its clock with it.
        state.withLockedValue { $0.stopped ? $0.finalCPUSeconds : LoopThread.cpuSeconds(cpuClock) }
    }

    /// The connection's 1-based number, or nil once the server stopped (the connection is then closed).
    func admit(_ channel: any Channel) -> Int? {
        let number = state.withLockedValue { state -> Int? in
            guard !state.stopped else { return nil }
            state.accepted += 1
            state.open[ObjectIdentifier(channel)] = channel
            return state.accepted
        }
        if number != nil {
            channel.closeFuture.whenComplete { [self] _ in
                state.withLockedValue { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return number
    }

    /// Marks the server stopped; the connections still open, or nil when it had stopped already.
    func stop() -> [any Channel]? {
        state.withLockedValue { state in
            guard !state.stopped else { return nil }
            state.finalCPUSeconds = LoopThread.cpuSeconds(cpuClock)
            state.stopped = true
            return Array(state.open.values)
        }
    }

    /// Runs the handler on a task of its own and passes its reply to `deliver` on `loop`, unless the server stopped
    /// meanwhile. Nil when the server has stopped.
    func run(_ request: LoopbackRequest, on loop: any EventLoop,
             deliver: @escaping @Sendable (LoopbackReply) -> Void) -> Task<Void, Never>? {
        let admitted = state.withLockedValue { state -> Bool in
            guard !state.stopped else { return false }
            state.running += 1
            return true
        }
        guard admitted else { return nil }
        let body: @Sendable () async -> Void = { [self] in
            let reply = await handler(request)
            state.withLockedValue { state in
                // The loop lives while a handler runs (`releaseGroupIfIdle`), so it is there to take the reply.
                if !state.stopped { loop.execute { deliver(reply) } }
                state.running -= 1
            }
            releaseGroupIfIdle()
        }
        if #available(macOS 15.0, *) {
            return Task(executorPreference: LoopTaskExecutor(loop), operation: body)
        }
        return Task(operation: body)
    }

    /// Shuts the event-loop group down once the server stopped and no handler is running, exactly once.
    func releaseGroupIfIdle() {
        let release = state.withLockedValue { state -> Bool in
            guard state.stopped, state.running == 0, !state.groupReleased else { return false }
            state.groupReleased = true
            return true
        }
        if release { group.shutdownGracefully { _ in } }
    }
}
