package import Logging
import Foundation
import ServiceLifecycle

/// The worker's HTTP endpoint: `GET /healthz`, `/readyz` and `/metrics` on the package's one `HTTPServer`.
///
/// Bounded for probes and scrapes: at most `defaultMaxConnections` at once (more are closed at accept), one request
/// per connection, no request body (over `maxBodyBytes` gets 413), and a connection whose request has not arrived
/// within `defaultIdleTimeout` of quiet is closed. The routes run on Swift's pool, not the server's thread: a
/// scrape that waits on the database must not hold up a liveness probe. As a `Service` it stops accepting on
/// graceful shutdown and returns once the open connections have been answered (at most `shutdownGrace`).
package struct MetricsServer: Service {
    /// Probes and scrapes come one or two at a time; more than this at once is a misbehaving client.
    package static let defaultMaxConnections = 16
    package static let defaultIdleTimeout: Duration = .seconds(10)
    /// Request bodies are not expected; one larger than this is refused with 413.
    static let maxBodyBytes = 1024
    /// How long a graceful shutdown waits for the connections open then; the idle timeout bounds a quiet one anyway.
    static let shutdownGrace: Duration = .seconds(15)

    private let server: HTTPServer
    private let logger: Logger
    /// Connections being served now (at most `maxConnections`).
    package var openConnections: Int { server.openConnections }
    /// The bound address, for logs and for `--metrics-port 0`.
    package let host: String
    package var port: Int { Int(server.port) }

    /// Binds now, so a taken port or bad host fails the command at start with a clear error.
    package static func bind(host: String, port: Int, routes: MetricsRoutes, logger: Logger,
                            maxConnections: Int = defaultMaxConnections,
                            idleTimeout: Duration = defaultIdleTimeout) async throws -> MetricsServer {
        guard let port = UInt16(exactly: port) else {
            throw MetricsEndpointError(description: "the metrics endpoint cannot listen on \(host):\(port): not a port (0 to 65535)")
        }
        var options = HTTPServer.Options()
        options.host = host
        options.port = port
        options.maxConnections = maxConnections
        options.idleTimeout = idleTimeout
        options.maxBodyBytes = maxBodyBytes
        options.backlog = 64
        options.threadName = "metrics-http"
        options.handlersOnServerThread = false
        do {
            let server = try HTTPServer(options) { request in await answer(request, routes: routes) }
            return MetricsServer(server: server, logger: logger, host: host)
        } catch {
            throw MetricsEndpointError(description: "the metrics endpoint \(error)")
        }
    }

    private init(server: HTTPServer, logger: Logger, host: String) {
        self.server = server
        self.logger = logger
        self.host = host
    }

    /// Serves (from `bind` on) until graceful shutdown, then drains; on cancellation it stops at once.
    package func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            server.stop()
            throw error
        }
        logger.debug("metrics endpoint: shutting down, \(server.openConnections) connections open")
        await server.shutdown(gracePeriod: Self.shutdownGrace)
    }

    /// The reply to one request; every reply closes its connection.
    static func answer(_ request: HTTPServerRequest, routes: MetricsRoutes) async -> HTTPServerReply {
        guard request.method == "GET" || request.method == "HEAD" else {
            return text(405, "only GET and HEAD\n")
        }
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.uri
        switch path {
        case "/healthz":
            let answer = await routes.healthz()
            return text(answer.ok ? 200 : 503, answer.text)
        case "/readyz":
            let answer = await routes.readyz()
            return text(answer.ok ? 200 : 503, answer.text)
        case "/metrics":
            return .response(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                             body: Data(await routes.metrics()), close: true)
        default:
            return text(404, "not found: try /healthz, /readyz or /metrics\n")
        }
    }

    private static func text(_ status: Int, _ text: String) -> HTTPServerReply {
        .response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8), close: true)
    }
}

/// The endpoint could not start (a taken port, an unknown host).
package struct MetricsEndpointError: Error, CustomStringConvertible {
    package let description: String
}
