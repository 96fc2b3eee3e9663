import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The production transport. The request timeout is enforced twice: by URLSession and by a race against a timer,
/// so a server that accepts the connection and never answers cannot hang a job.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// One uncached session for every transport that is not given its own, so clients made per job share connections.
    private static let sharedSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // The default (6) would queue a scan's concurrent requests (and parallel tests) behind slow ones to one host.
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    public init(session: URLSession? = nil) {
        self.session = session ?? Self.sharedSession
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        // swift-corelibs-foundation truncates timeoutInterval to whole seconds (0.3 s would time out at once), so
        // URLSession gets the limit rounded up and the race below enforces the exact value.
        urlRequest.timeoutInterval = max(1, request.timeout.seconds.rounded(.up))
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let session = self.session
        let timeout = request.timeout
        let prepared = urlRequest

        return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask { try await Self.perform(prepared, on: session, timeout: timeout) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TransportError.timedOut(timeout)
            }
            defer { group.cancelAll() }
            do {
                guard let first = try await group.next() else { throw TransportError.other("no result") }
                return first
            } catch is CancellationError {
                throw TransportError.cancelled
            }
        }
    }

    /// One data task whose continuation resumes exactly once, on completion or on cancellation, whichever is first.
    private static func perform(_ request: URLRequest, on session: URLSession, timeout: Duration) async throws -> HTTPResponse {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let once = ResumeOnce(continuation)
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        once.resume(throwing: Self.map(error, timeout: timeout))
                    } else if let http = response as? HTTPURLResponse {
                        var headers: [String: String] = [:]
                        for (key, value) in http.allHeaderFields {
                            if let key = key as? String { headers[key] = "\(value)" }
                        }
                        once.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
                    } else {
                        once.resume(throwing: TransportError.other("the response is not HTTP"))
                    }
                }
                box.set(task: task, once: once)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    private static func map(_ error: any Error, timeout: Duration) -> TransportError {
        guard let urlError = error as? URLError else { return .other(String(describing: error)) }
        switch urlError.code {
        case .timedOut: return .timedOut(timeout)
        case .cancelled: return .cancelled
        case .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
            .badServerResponse, .secureConnectionFailed, .cannotParseResponse, .zeroByteResource:
            return .connectionFailed(urlError.localizedDescription)
        default:
            return .other("URL error \(urlError.code.rawValue): \(urlError.localizedDescription)")
        }
    }
}

/// Resumes a continuation at most once; later calls are ignored.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?

    init(_ continuation: CheckedContinuation<HTTPResponse, any Error>) { self.continuation = continuation }

    private func take() -> CheckedContinuation<HTTPResponse, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        let taken = continuation
        continuation = nil
        return taken
    }

    func resume(returning value: HTTPResponse) { take()?.resume(returning: value) }
    func resume(throwing error: any Error) { take()?.resume(throwing: error) }
}

/// Holds the data task so a cancellation that races task creation still cancels it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var once: ResumeOnce?
    private var cancelled = false

    func set(task: URLSessionDataTask, once: ResumeOnce) {
        lock.lock()
        self.task = task
        self.once = once
        let alreadyCancelled = cancelled
        lock.unlock()
        if alreadyCancelled { cancelNow(task: task, once: once) }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        let once = self.once
        lock.unlock()
        if let task, let once { cancelNow(task: task, once: once) }
    }

    private func cancelNow(task: URLSessionDataTask, once: ResumeOnce) {
        task.cancel()
        once.resume(throwing: TransportError.cancelled)
    }
}
