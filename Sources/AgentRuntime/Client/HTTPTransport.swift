package import Foundation

/// The seam between the client and the network, so retries and decoding can be tested without sockets.
package protocol HTTPTransport: Sendable {
    /// Sends one request. Throws `TransportError` for failures below HTTP; any HTTP status is a response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

package struct HTTPRequest: Sendable {
    package var method: String
    package var url: URL
    package var headers: [String: String]
    package var body: Data
    /// The transport must give up after this long, even if the server keeps the connection open.
    package var timeout: Duration
    /// Replaces the transport's cap on the response body (e.g. for a batch output file); nil keeps the transport's.
    package var maxResponseBytes: Int?

    package init(method: String = "POST", url: URL, headers: [String: String] = [:], body: Data = Data(), timeout: Duration,
                maxResponseBytes: Int? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

package struct HTTPResponse: Sendable {
    package var status: Int
    /// Header names lowercased, so lookups need not care how the server spelled them.
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A failure below HTTP: nothing or nothing complete came back.
package enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    case timedOut(Duration)
    case connectionFailed(String)
    case cancelled
    /// The body was longer than the cap; it was not buffered.
    case responseTooLarge(limit: Int)
    case other(String)

    package var description: String {
        switch self {
        case .timedOut(let limit): "no response within \(limit)"
        case .connectionFailed(let why): "connection failed: \(why)"
        case .cancelled: "cancelled"
        case .responseTooLarge(let limit): "the response body is larger than the limit of \(limit) bytes; it was not read"
        case .other(let why): why
        }
    }
}
