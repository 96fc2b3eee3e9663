package import Logging
import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The worker's HTTP endpoint: `GET /healthz`, `/readyz` and `/metrics`, served by Hummingbird.
///
/// Bounded for probes and scrapes: at most `defaultMaxConnections` at once (Hummingbird's available-connections
/// delegate: at the cap the server stops accepting, so a further connection waits in the listen backlog, unanswered,
/// until a slot frees; the old server closed it at accept), no request body (over `maxBodyBytes` gets 413), and a
/// connection quiet for `defaultIdleTimeout` while no answer is due is closed (Hummingbird's HTTP/1 `idleTimeout`:
/// one that connects and says nothing, or a kept-alive one between requests). Two bounds of the old server are not
/// kept, as Hummingbird has no setting for them: connections are kept alive between requests (the old server closed
/// every connection after its answer), and the rest of an over-limit body is read and dropped after its 413 for as
/// long as the client sends it (the old server closed the connection after 1 MiB of it); the connection cap bounds
/// how many clients can do either.
///
/// The routes run on Swift's pool, each connection in a task of its own: a scrape that waits on the database does not
/// hold up a liveness probe. The server has one event-loop thread of its own, so the model client's event loops never
/// delay a probe.
///
/// `bind` binds at once, so a taken port or a bad host fails the command at start with a clear error and
/// `--metrics-port 0` can report the port it got. As a `Service` it serves until graceful shutdown, then stops
/// accepting and returns once the requests under way have been answered (at most `shutdownGrace`).
package struct MetricsServer: Service {
    /// Probes and scrapes come one or two at a time; more than this at once is a misbehaving client.
    static let defaultMaxConnections = 16
    static let defaultIdleTimeout: Duration = .seconds(10)
    /// Request bodies are not expected; one larger than this is refused with 413.
    static let maxBodyBytes = 1024
    /// How long a graceful shutdown waits for the requests under way; the idle timeout bounds a quiet connection anyway.
    static let shutdownGrace: Duration = .seconds(15)
    /// Connections the kernel queues while the server is at its cap.
    static let backlog = 64

    private let serving: Serving
    /// Connections open now (at most `maxConnections`).
    package var openConnections: Int { serving.connections.open }
    /// The bound address, for logs and for `--metrics-port 0`.
    package let host: String
    package let port: Int

    /// Binds now and starts serving; throws `MetricsEndpointError` when the address cannot be listened on.
    package static func bind(host: String, port: Int, routes: MetricsRoutes, logger: Logger,
                            maxConnections: Int = defaultMaxConnections,
                            idleTimeout: Duration = defaultIdleTimeout) async throws -> MetricsServer {
        guard (0...65_535).contains(port) else {
            throw MetricsEndpointError(description: "the metrics endpoint cannot listen on \(host):\(port): not a port (0 to 65535)")
        }
        let connections = OpenConnections()
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (bound, reportBound) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router(routes),
            server: .http1(configuration: .init(idleTimeout: TimeAmount(idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), backlog: backlog,
                availableConnectionsDelegate: ConnectionCap(max: maxConnections, connections: connections)),
            onServerRunning: { channel in
                reportBound.yield(channel.localAddress?.port ?? port)
                reportBound.finish()
            },
            eventLoopGroupProvider: .shared(eventLoops),
            logger: logger)
        // Its own group, so that `run` can shut it down gracefully whatever group runs `run`.
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task {
            defer { reportBound.finish() }
            do {
                try await group.run()
            } catch {
                try? await eventLoops.shutdownGracefully()
                throw error
            }
            try? await eventLoops.shutdownGracefully()
        }
        for await actual in bound {
            return MetricsServer(serving: Serving(task: task, group: group, connections: connections), host: host, port: actual)
        }
        // The server stopped before it listened: a taken port, an unknown host.
        do {
            try await task.value
        } catch {
            let inUse = (error as? IOError)?.errnoCode == EADDRINUSE
            throw MetricsEndpointError(
                description: "the metrics endpoint cannot listen on \(host):\(port)\(inUse ? " (the port is in use)" : ""): \(error)")
        }
        throw MetricsEndpointError(description: "the metrics endpoint on \(host):\(port) stopped before it listened")
    }

    private init(serving: Serving, host: String, port: Int) {
        self.serving = serving
        self.host = host
        self.port = port
    }

    /// Serves (from `bind` on) until graceful shutdown, then drains; on cancellation it stops at once.
    package func run() async throws {
        let serving = self.serving
        try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                // Ends when the server stops: after a graceful shutdown has drained it, or on a failure.
                tasks.addTask { try await serving.task.value }
                tasks.addTask {
                    try await gracefulShutdown()
                    await serving.group.triggerGracefulShutdown()
                    // Requests still unanswered after the grace period are cut off.
                    try await Task.sleep(for: Self.shutdownGrace)
                    serving.task.cancel()
                }
                _ = try await tasks.next()
                tasks.cancelAll()
            }
        } onCancel: {
            serving.task.cancel()
        }
    }

    /// The routes, with the endpoint's own answers around them (`EndpointAnswers`).
    static func router(_ routes: MetricsRoutes) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: EndpointAnswers(maxBodyBytes: maxBodyBytes))
        router.get("/healthz") { _, _ in probe(await routes.healthz()) }
        router.get("/readyz") { _, _ in probe(await routes.readyz()) }
        router.get("/metrics") { _, _ in
            let text = await routes.metrics()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
        return router
    }

    private static func probe(_ answer: ProbeAnswer) -> Response {
        text(answer.ok ? .ok : .serviceUnavailable, answer.text)
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// What the endpoint answers before and instead of the routes: 413 for a body over `maxBodyBytes`, 405 for a method
/// other than GET and HEAD, 404 naming the routes for any other path (without a body for HEAD).
struct EndpointAnswers<Context: RequestContext>: RouterMiddleware {
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            return headless(request, MetricsServer.text(.contentTooLarge, "request body over \(maxBodyBytes) bytes\n"))
        }
        guard request.method == .get || request.method == .head else {
            return MetricsServer.text(.methodNotAllowed, "only GET and HEAD\n")
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return headless(request, MetricsServer.text(.notFound, "not found: try /healthz, /readyz or /metrics\n"))
        }
    }

    private func headless(_ request: Request, _ response: Response) -> Response {
        request.method == .head ? response.createHeadResponse() : response
    }
}

/// The connection cap, as Hummingbird's available-connections delegate: the server accepts while fewer than `max`
/// connections are open. Called on the server's event loop.
struct ConnectionCap: AvailableConnectionsDelegate {
    let max: Int
    let connections: OpenConnections

    mutating func connectionOpened() { connections.add(1) }
    mutating func connectionClosed() { connections.add(-1) }
    func isAcceptingNewConnections() -> Bool { connections.open < max }
}

/// The count of open connections, shared by the delegate and `MetricsServer.openConnections`.
final class OpenConnections: Sendable {
    private let count = Mutex(0)

    var open: Int { count.withLock { $0 } }

    func add(_ delta: Int) { count.withLock { $0 += delta } }
}

/// The server task `bind` started and its service group; dropping the last reference stops it.
private final class Serving: Sendable {
    let task: Task<Void, any Error>
    let group: ServiceGroup
    let connections: OpenConnections

    init(task: Task<Void, any Error>, group: ServiceGroup, connections: OpenConnections) {
        self.task = task
        self.group = group
        self.connections = connections
    }

    deinit { task.cancel() }
}

/// The endpoint could not start (a taken port, an unknown host).
package struct MetricsEndpointError: Error, CustomStringConvertible {
    package let description: String
}
