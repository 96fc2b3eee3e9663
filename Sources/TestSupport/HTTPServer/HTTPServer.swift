package import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The tests' and benchmarks' loopback HTTP/1.1 server: the fake model servers (`FakeOpenAIServer`, Bench's
/// `BenchOpenAIServer` and `AgentBenchmarkServer`, the transport tests' scripted connections). Never linked into
/// messageai-jobs, whose one HTTP server, the worker's metrics endpoint (`MetricsServer`), is Hummingbird. Every
/// request, read whole, goes to an async handler whose `HTTPServerReply` says what to send back, or how to fail
/// (delay, close, reset, chunked body).
///
/// SwiftNIO's HTTP/1.1 codec rather than a framework: the routes are a closure, and the faults a test injects
/// (a reset, a close under a request, a chunked body, a reply after a delay) need the connection in hand.
/// Each server has one event-loop thread of its own, so it costs no thread per connection, a delayed reply waits on a
/// timer, and `cpuSeconds` reads the server's CPU apart from the `NIO-ELT` threads of an HTTP client a benchmark
/// measures. Requests on one connection are answered one after another; connections concurrently. Every resource is
/// bounded by `Options`: connections at once (more are closed at accept), the request body (a larger one gets 413 and
/// the connection closes), and, with an idle timeout, how long a connection may stay quiet while no answer is due.
package final class HTTPServer: Sendable {
    package typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerReply

    package struct Options: Sendable {
        package var host = "127.0.0.1"
        /// 0 picks a free port; read it back from `port`.
        package var port: UInt16 = 0
        /// Connections open at once; more are closed at accept. Nil: no cap (a test's server).
        package var maxConnections: Int?
        /// A connection that sends nothing for this long while no answer on it is due is closed (a client that
        /// connects and says nothing, or trickles its request). Nil: never.
        package var idleTimeout: Duration?
        /// The largest request body read; a larger one is answered 413 and the connection closed.
        package var maxBodyBytes = 64 * 1024 * 1024
        package var backlog: Int32 = 512
        /// The event-loop thread's name, as `ps -L`, `top -H` and `perf` show it.
        package var threadName = "loopback-http"
        /// Handlers run on the server's own thread (their CPU counts in `cpuSeconds`, and a test that blocks Swift's
        /// pool threads cannot starve the server it waits on), or, when false, on Swift's shared pool: for handlers
        /// that may wait on something slow, such as a database, and must not hold up other connections.
        package var handlersOnServerThread = true

        package init() {}
    }

    package let port: UInt16
    package let host: String
    /// `http://HOST:PORT`.
    package var url: URL { URL(string: "http://\(host):\(port)")! }
    private let core: HTTPServerCore
    private let listener: any Channel

    /// A loopback server for tests and benchmarks: 127.0.0.1:`port` (0 picks a free port), no connection cap.
    package convenience init(port: UInt16 = 0, handler: @escaping Handler) throws {
        var options = Options()
        options.port = port
        try self.init(options, handler: handler)
    }

    /// Binds now, so a taken port or a bad host fails at once, and starts serving.
    package init(_ options: Options, handler: @escaping Handler) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let cpuClock = try group.next().submit { ServerThread.prepare(name: options.threadName) }.wait()
            let core = HTTPServerCore(group: group, cpuClock: cpuClock, options: options, handler: handler)
            let idleTimeout = options.idleTimeout.map { TimeAmount($0) }
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: options.backlog)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture(withResultOf: {
                        guard let number = core.admit(channel) else { throw ChannelError.ioOnClosedChannel }
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false)
                        if let idleTimeout { try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout)) }
                        try pipeline.addHandler(HTTPConnectionHandler(core: core, connection: number))
                    })
                }
                .bind(host: options.host, port: Int(options.port))
                .wait()
            self.core = core
            self.host = options.host
            self.port = UInt16(listener.localAddress?.port ?? 0)
        } catch {
            group.shutdownGracefully { _ in }
            let inUse = (error as? IOError)?.errnoCode == EADDRINUSE
            throw HTTPServerError(description: "cannot listen on \(options.host):\(options.port)\(inUse ? " (the port is in use)" : ""): \(error)")
        }
    }

    /// A server's threads hold only its core, so dropping the last reference stops it.
    deinit { stop() }

    /// Connections accepted so far.
    package var acceptedConnections: Int { core.acceptedConnections }

    /// Connections open now (at most `Options.maxConnections`).
    package var openConnections: Int { core.openConnections }

    /// CPU seconds (user and system) the server's event-loop thread has used so far; frozen once the server stops.
    /// With `handlersOnServerThread` the handlers run on that thread too (`LoopTaskExecutor`).
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

    /// Stops accepting, lets the connections open now be answered and closed (for at most `gracePeriod`, then they
    /// are closed), and stops. For a graceful shutdown; idempotent, and a no-op after `stop()`.
    package func shutdown(gracePeriod: Duration) async {
        guard let open = core.refuseNewConnections() else { return }
        try? await listener.close()
        let loop = listener.eventLoop
        let cutoff = loop.scheduleTask(in: TimeAmount(gracePeriod)) { for channel in open { channel.close(promise: nil) } }
        try? await EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop).get()
        cutoff.cancel()
        stop()
    }
}

/// Why a server could not start (a taken port, an unknown host).
package struct HTTPServerError: Error, CustomStringConvertible {
    package let description: String
}
