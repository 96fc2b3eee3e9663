import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The production transport, on SwiftNIO's AsyncHTTPClient: one event-loop thread waits on every request in flight
/// (epoll, no polling), a bounded keep-alive pool per host, an exact deadline per attempt and a cap on the body.
///
/// Waiting on a model so costs almost no CPU (URLSession on Linux spins libdispatch and libcurl while it waits).
/// Use `shared` unless a test or benchmark needs other options; an instance made with `init` owns an event-loop
/// thread and must be shut down with `shutdown()`.
package final class AsyncHTTPClientTransport: HTTPTransport {
    /// Limits of one transport; the defaults suit Chat Completions at the scan's largest concurrency.
    package struct Options: Sendable {
        /// Connections to one host at once; further requests wait for a free one. The scan runs up to 64
        /// conversations, each sending its five feature requests at once: 320 keeps them all on the wire.
        package var maxConnectionsPerHost = 320
        /// Bodies longer than this fail with `TransportError.responseTooLarge` before they are buffered whole
        /// (a chat answer is a few KiB; a request may raise it, e.g. to download a batch output file).
        package var maxResponseBytes = 16 * 1024 * 1024
        /// Connecting (TCP and TLS) gives up after this long, or at the request's deadline if that comes first.
        package var connectTimeout: Duration = .seconds(10)
        /// An unused keep-alive connection is closed after this long (servers close theirs after a minute or so).
        package var idleTimeout: Duration = .seconds(30)
        /// Event-loop threads; one is enough to wait on hundreds of connections.
        var eventLoopThreads = 1

        package init() {}
    }

    /// One transport for the whole process, so clients made per job share the pool. Never shut down.
    package static let shared = AsyncHTTPClientTransport()

    package let options: Options
    private let client: HTTPClient
    private let group: MultiThreadedEventLoopGroup
    private let isShutDown = NIOLockedValueBox(false)
    /// Connections this transport has opened so far: an attempt during which none was opened went out on a
    /// kept-alive one, so a close under it is the stale-connection race, worth one retry at once.
    private let connectionsOpened: NIOLockedValueBox<Int>

    package init(options: Options = Options()) {
        self.options = options
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, options.eventLoopThreads))
        var configuration = HTTPClient.Configuration(
            // A request carries the API key: never follow a redirect to wherever it points.
            redirectConfiguration: .disallow,
            timeout: .init(connect: Self.timeAmount(options.connectTimeout)),
            connectionPool: .init(idleTimeout: Self.timeAmount(options.idleTimeout),
                                  concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, options.maxConnectionsPerHost)),
            decompression: .disabled
        )
        // HTTP/1.1 only, so the pool bound above is what bounds the connections. Over HTTP/2 AsyncHTTPClient keeps one
        // connection per event loop and queues requests beyond the server's stream limit, a ceiling of its own.
        configuration.httpVersion = .http1Only
        // A refused connection is an answer: report it now rather than retrying until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        let opened = NIOLockedValueBox(0)
        connectionsOpened = opened
        configuration.http1_1ConnectionDebugInitializer = { channel in
            opened.withLockedValue { $0 += 1 }
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        configuration.http2ConnectionDebugInitializer = configuration.http1_1ConnectionDebugInitializer
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    /// Closes the pool's connections and stops the event-loop thread. Requests after this fail.
    package func shutdown() async throws {
        guard isShutDown.withLockedValue({ done in defer { done = true }; return !done }) else { return }
        try await client.shutdown()
        try await group.shutdownGracefully()
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        guard !isShutDown.withLockedValue({ $0 }) else { throw TransportError.other("the HTTP transport was shut down") }
        let prepared = try Self.prepare(request)
        let limit = request.maxResponseBytes ?? options.maxResponseBytes
        return try await Self.perform(prepared, on: client, opened: connectionsOpened, timeout: request.timeout, limit: limit)
    }

    /// One attempt, and one more at once on a fresh connection if the first went out on a kept-alive connection that
    /// closed or reset under it (the server dropped it while it was idle, as the request left). A new connection
    /// that fails is the server's answer and left to the client's retry policy.
    private static func perform(_ request: HTTPClient.Request, on client: HTTPClient, opened: NIOLockedValueBox<Int>,
                                timeout: Duration, limit: Int) async throws -> HTTPResponse {
        let deadline = NIODeadline.now() + timeAmount(timeout)
        let openedBefore = opened.withLockedValue { $0 }
        do {
            return try await exchange(request, on: client, deadline: deadline, limit: limit)
        } catch let error where isClosedConnection(error) && opened.withLockedValue({ $0 }) == openedBefore
            && !Task.isCancelled && NIODeadline.now() < deadline {
            do {
                return try await exchange(request, on: client, deadline: deadline, limit: limit)
            } catch {
                throw map(error, timeout: timeout, limit: limit)
            }
        } catch {
            throw map(error, timeout: timeout, limit: limit)
        }
    }

    /// One exchange through AsyncHTTPClient's delegate API, whose deadline covers the whole response, body included,
    /// on the event loop's own timer. The async API's deadline ends at the response head, so the body needed a timer
    /// task racing it: two child tasks and a libdispatch timer per request, about a third of an agent step's CPU.
    private static func exchange(_ request: HTTPClient.Request, on client: HTTPClient, deadline: NIODeadline, limit: Int) async throws -> HTTPResponse {
        let task = client.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: limit), deadline: deadline)
        let response = try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        return HTTPResponse(status: Int(response.status.code), headers: headers, body: response.body.map { Data($0.readableBytesView) } ?? Data())
    }

    /// The request as AsyncHTTPClient takes it: the same method, URL, headers and body bytes, nothing added but
    /// what HTTP/1.1 requires (`Host`, `Content-Length`).
    static func prepare(_ request: HTTPRequest) throws -> HTTPClient.Request {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw TransportError.other("unsupported URL scheme in \(request.url.absoluteString): use http or https")
        }
        let method = HTTPMethod(rawValue: request.method.uppercased())
        var headers = HTTPHeaders()
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        let body: HTTPClient.Body? = !request.body.isEmpty || method == .POST || method == .PUT
            ? .byteBuffer(ByteBuffer(bytes: request.body)) : nil
        do {
            return try HTTPClient.Request(url: request.url.absoluteString, method: method, headers: headers, body: body)
        } catch {
            throw TransportError.other("invalid request URL \(request.url.absoluteString): \(error)")
        }
    }

    /// Whether the connection closed or reset under the request, before any answer came.
    static func isClosedConnection(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? IOError { return [ECONNRESET, EPIPE, ECONNABORTED].contains(error.errnoCode) }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .eof, .outputClosed, .alreadyClosed: return true
            default: return false
            }
        }
        return false
    }

    /// A `TransportError` that says what failed; it never holds the request's headers (the key is one of them).
    static func map(_ error: any Error, timeout: Duration, limit: Int) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case is CancellationError:
            return .cancelled
        case is ResponseAccumulator.ResponseTooBigError:
            return .responseTooLarge(limit: limit)
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout: return .timedOut(timeout)
            case .cancelled: return Task.isCancelled ? .cancelled : .timedOut(timeout)
            case .connectTimeout: return .connectionFailed("connect timed out")
            case .remoteConnectionClosed: return .connectionFailed("the server closed the connection before answering")
            default: return .other("HTTP client error: \(error)")
            }
        case let error as IOError:
            return .connectionFailed(TransportErrorText.describe(error))
        case let error as ChannelError:
            return .connectionFailed("channel error: \(error)")
        default:
            let text = String(describing: error)
            if text.contains("NIOConnectionError") || text.contains("connectionRefused") || text.contains("ECONNREFUSED") {
                return .connectionFailed(text)
            }
            return .other(text)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.wholeNanoseconds)
    }
}
