package import Logging
import Core
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The worker's HTTP endpoint: `GET /healthz`, `/readyz` and `/metrics`, on SwiftNIO's HTTP/1.1 codec.
///
/// NIO rather than a framework: three fixed routes need no router, and the binary already links NIO. Every
/// resource is bounded: at most `defaultMaxConnections` at once (more are closed at accept), one request per connection,
/// headers within NIO's decoder limits, no request body, and a connection whose request has not arrived within `defaultIdleTimeout` of quiet is closed.
/// As a `Service` it stops accepting on graceful shutdown and returns once open connections have been answered.
package struct MetricsServer: Service {
    /// Probes and scrapes come one or two at a time; more than this at once is a misbehaving client.
    package static let defaultMaxConnections = 16
    package static let defaultIdleTimeout: Duration = .seconds(10)
    /// Request bodies are not expected; one larger than this is refused with 413.
    static let maxBodyBytes = 1024
    /// A refused body is read and dropped up to this size before the connection is closed.
    static let maxDrainedBytes = 1 << 20

    private let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let routes: MetricsRoutes
    private let logger: Logger
    private let open = NIOLockedValueBox(0)
    private let maxConnections: Int
    /// Connections being served now (at most `maxConnections`).
    package var openConnections: Int { open.withLockedValue { $0 } }
    /// The bound address, for logs and for `--metrics-port 0`.
    package let host: String
    package let port: Int

    /// Binds now, so a taken port or bad host fails the command at start with a clear error.
    package static func bind(host: String, port: Int, routes: MetricsRoutes, logger: Logger,
                            maxConnections: Int = defaultMaxConnections,
                            idleTimeout: Duration = defaultIdleTimeout) async throws -> MetricsServer {
        let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            channel = try await bootstrap(host: host, port: port, idleTimeout: .nanoseconds(idleTimeout.wholeNanoseconds))
        } catch {
            throw MetricsEndpointError(description: "the metrics endpoint cannot listen on \(host):\(port): \(error)")
        }
        return MetricsServer(channel: channel, routes: routes, logger: logger, host: host,
                             port: channel.channel.localAddress?.port ?? port, maxConnections: maxConnections)
    }

    private static func bootstrap(host: String, port: Int, idleTimeout: TimeAmount) async throws
        -> NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try child.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try child.pipeline.syncOperations.addHandler(CloseOnIdleHandler())
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: child)
                }
            }
    }

    private init(channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
                 routes: MetricsRoutes, logger: Logger, host: String, port: Int, maxConnections: Int) {
        self.channel = channel
        self.maxConnections = maxConnections
        self.routes = routes
        self.logger = logger
        self.host = host
        self.port = port
    }

    package func run() async throws {
        let server = channel.channel
        try await withGracefulShutdownHandler {
            try await channel.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        let admitted = open.withLockedValue { count in
                            guard count < maxConnections else { return false }
                            count += 1
                            return true
                        }
                        guard admitted else {
                            // Closed through the async channel, which finishes its writer (dropping it unfinished traps).
                            group.addTask { try? await connection.executeThenClose { _, _ in } }
                            continue
                        }
                        group.addTask {
                            defer { open.withLockedValue { $0 -= 1 } }
                            await serve(connection)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            server.close(promise: nil)
        }
    }

    /// Answers one request, then closes the connection.
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var bodyBytes = 0
                var refused = false
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                    case .body(let chunk):
                        bodyBytes += chunk.readableBytes
                        if bodyBytes > Self.maxBodyBytes, !refused {
                            refused = true
                            try await write(Reply(status: .payloadTooLarge, text: "request body too large\n"), head: head, to: outbound)
                        }
                        // The rest is read and dropped (up to a bound), so closing does not reset the connection
                        // before the client has read the 413.
                        if bodyBytes > Self.maxDrainedBytes { return }
                    case .end:
                        guard let head, !refused else { return }
                        try await write(await reply(to: head), head: head, to: outbound)
                        return
                    }
                }
            }
        } catch {
            logger.debug("metrics endpoint connection ended: \(error)")
        }
    }

    private struct Reply {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]

        init(status: HTTPResponseStatus, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }

        init(status: HTTPResponseStatus, text: String) { self.init(status: status, body: Array(text.utf8)) }
    }

    private func reply(to head: HTTPRequestHead) async -> Reply {
        guard head.method == .GET || head.method == .HEAD else {
            return Reply(status: .methodNotAllowed, text: "only GET and HEAD\n")
        }
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        switch path {
        case "/healthz":
            let answer = await routes.healthz()
            return Reply(status: answer.ok ? .ok : .serviceUnavailable, text: answer.text)
        case "/readyz":
            let answer = await routes.readyz()
            return Reply(status: answer.ok ? .ok : .serviceUnavailable, text: answer.text)
        case "/metrics":
            return Reply(status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: await routes.metrics())
        default:
            return Reply(status: .notFound, text: "not found: try /healthz, /readyz or /metrics\n")
        }
    }

    private func write(_ reply: Reply, head request: HTTPRequestHead?,
                       to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: reply.contentType)
        headers.add(name: "Content-Length", value: "\(reply.body.count)")
        headers.add(name: "Connection", value: "close")
        let version = request?.version ?? .http1_1
        try await outbound.write(.head(HTTPResponseHead(version: version, status: reply.status, headers: headers)))
        if request?.method != .HEAD {
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: reply.body))))
        }
        try await outbound.write(.end(nil))
    }
}

/// The endpoint could not start (a taken port, an unknown host).
package struct MetricsEndpointError: Error, CustomStringConvertible {
    package let description: String
}

/// Closes a connection whose request has not fully arrived when the `IdleStateHandler` in front of it reports no
/// read for the idle timeout (a client that connects and says nothing, or trickles). Once the request is complete
/// the answer is being prepared, however long a busy machine takes to schedule it, and the connection stays open.
private final class CloseOnIdleHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private var requestComplete = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { requestComplete = true }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if !requestComplete { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
