package import Foundation

/// One request as `HTTPServer` read it, head and whole body.
package struct HTTPServerRequest: Sendable {
    package var method: String
    /// The request target as sent, query included (`/v1/files?purpose=batch`).
    package var uri: String
    /// `HTTP/1.1`.
    package var version: String
    /// In arrival order, names as the client spelled them; a repeated header appears once per line.
    package var headers: [(name: String, value: String)]
    package var body: Data
    /// Whether the body arrived with `Transfer-Encoding: chunked`.
    package var wasChunked: Bool
    /// Whether the connection may carry another request after this one (no `Connection: close`).
    package var keepAlive: Bool
    /// 1-based number of the connection it came on, in accept order.
    package var connection: Int
    /// 0-based position of the request on its connection.
    package var indexOnConnection: Int
    package var receivedAt: ContinuousClock.Instant

    /// `POST /v1/chat/completions HTTP/1.1`.
    package var requestLine: String { "\(method) \(uri) \(version)" }

    /// The values of every header line named `name` (any case), joined with ", "; nil when there is none.
    package func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
