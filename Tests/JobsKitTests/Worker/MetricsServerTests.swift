import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import JobsKit
import ServiceLifecycle
import TestSupport
import Testing

/// The endpoint's HTTP behaviour and bounds, with fixed answers in place of a worker.
@Suite("Metrics server")
struct MetricsServerTests {
    static let routes = MetricsRoutes(
        healthz: { ProbeAnswer(ok: true, reasons: []) },
        readyz: { ProbeAnswer(ok: false, reasons: ["first claim pass not done"]) },
        metrics: { Array("# TYPE up gauge\nup 1\n".utf8) })

    /// Runs a server on a free loopback port for `body`, then shuts it down gracefully and checks it returned.
    static func withServer(maxConnections: Int = 16, idleTimeout: Duration = .seconds(10),
                           _ body: (LoopbackEndpoint, MetricsServer) async throws -> Void) async throws {
        let server = try await MetricsServer.bind(host: "127.0.0.1", port: 0, routes: routes, logger: Logger(label: "test"),
                                                  maxConnections: maxConnections, idleTimeout: idleTimeout)
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        do {
            try await body(LoopbackEndpoint(port: server.port), server)
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("routes: 200 and 503 probes with reasons, metrics text, 404, 405, HEAD without a body")
    func routes() async throws {
        try await Self.withServer { endpoint, _ in
            let health = try await endpoint.get("/healthz")
            #expect(health.status == 200)
            #expect(health.text == "ok\n")
            let ready = try await endpoint.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.text == "first claim pass not done\n")
            let metrics = try await endpoint.get("/metrics?name[]=up")
            #expect(metrics.status == 200)
            #expect(metrics.text == "# TYPE up gauge\nup 1\n")
            #expect(try await endpoint.get("/").status == 404)
            #expect(try await endpoint.get("/metrics", method: "DELETE").status == 405)
            let head = try await endpoint.get("/healthz", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.text.isEmpty)
        }
    }

    @Test("a request body over the limit gets 413")
    func bodyTooLarge() async throws {
        try await Self.withServer { endpoint, _ in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(endpoint.port)/metrics")!, timeoutInterval: 5)
            request.httpMethod = "POST"
            request.httpBody = Data(repeating: 0x41, count: 64 * 1024)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 413)
        }
    }

    @Test("connections over the cap are not served (they wait in the listen backlog); a slot frees when its client leaves")
    func connectionCap() async throws {
        // Waits are generous: under the full suite the accept loop can wait seconds for a thread.
        try await Self.withServer(maxConnections: 2, idleTimeout: .seconds(300)) { endpoint, server in
            // Two silent clients hold both slots.
            let idle = try (0..<2).map { _ in try SilentConnection(port: endpoint.port) }
            try await waitUntil(60, "the server holds both connections") { server.openConnections == 2 }
            // Hummingbird stops accepting at the cap (the old server accepted and closed at once): the kernel completes
            // a third client's handshake into the listen backlog, and its request is neither answered nor refused.
            let queued = try SilentConnection(port: endpoint.port)
            queued.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(queued.hearsNothing(seconds: 2))
            #expect(server.openConnections == 2)
            for connection in idle { connection.close() }
            // A freed slot takes the queued connection, whose request is then answered.
            #expect(queued.receive(seconds: 60).hasPrefix("HTTP/1.1 200"))
            try await waitUntil(60, "the endpoint answers again") { (try? await endpoint.get("/healthz").status) == 200 }
        }
    }

    @Test("a taken port fails bind at once, saying so")
    func takenPort() async throws {
        try await Self.withServer { endpoint, _ in
            let error = await #expect(throws: MetricsEndpointError.self) {
                try await MetricsServer.bind(host: "127.0.0.1", port: endpoint.port, routes: Self.routes, logger: Logger(label: "test"))
            }
            #expect(error?.description.contains("cannot listen on 127.0.0.1:\(endpoint.port) (the port is in use)") == true,
                    "\(String(describing: error))")
        }
    }

    @Test("a client that connects and says nothing is disconnected after the idle timeout")
    func idleTimeout() async throws {
        try await Self.withServer(idleTimeout: .seconds(1)) { endpoint, server in
            let silent = try SilentConnection(port: endpoint.port)
            #expect(silent.waitForClose(seconds: 60))
            try await waitUntil(60, "the slot is free") { server.openConnections == 0 }
        }
    }

    @Test("graceful shutdown refuses new connections, answers the scrape under way, and returns")
    func shutdownDrains() async throws {
        let (release, released) = AsyncStream<Void>.makeStream()
        let (scrapes, scraping) = AsyncStream<Void>.makeStream()
        let routes = MetricsRoutes(
            healthz: { ProbeAnswer(ok: true, reasons: []) },
            readyz: { ProbeAnswer(ok: true, reasons: []) },
            metrics: {
                scraping.yield()
                for await _ in release { break }
                return Array("up 1\n".utf8)
            })
        let server = try await MetricsServer.bind(host: "127.0.0.1", port: 0, routes: routes, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        let endpoint = LoopbackEndpoint(port: server.port)
        let scrape = Task { try await endpoint.get("/metrics") }
        for await _ in scrapes { break }
        await group.triggerGracefulShutdown()
        let port = UInt16(server.port)
        try await waitUntil(60, "the endpoint refuses new connections") {
            (try? await RawHTTPExchange.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")) == nil
        }
        #expect(server.openConnections == 1, "the scrape's connection stays open while it is answered")
        released.yield()
        let reply = try await scrape.value
        #expect(reply.status == 200)
        #expect(reply.text == "up 1\n")
        try await running.value
        #expect(server.openConnections == 0)
    }
}

struct ConnectFailed: Error, CustomStringConvertible {
    let description: String
}

/// A TCP connection that sends nothing (unless told to), to hold a server slot.
final class SilentConnection {
    private let fd: Int32
    private var closed = false

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard fd >= 0, connected else { throw ConnectFailed(description: "could not connect to 127.0.0.1:\(port): errno \(errno)") }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fd)
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// True if the peer neither sent a byte nor closed within `seconds`.
    func hearsNothing(seconds: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) == 0
    }

    /// What the peer sends first, within `seconds` (empty if nothing, or a close).
    func receive(seconds: Double) -> String {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(seconds * 1000)) == 1 else { return "" }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &bytes, bytes.count, 0)
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : ""
    }

    /// True once the peer has closed the connection (a read returns 0 or fails), within `seconds`.
    func waitForClose(seconds: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(seconds * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) <= 0
    }
}
