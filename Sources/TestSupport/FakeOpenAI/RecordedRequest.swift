package import Foundation
package import Core

/// One request as the fake server received it.
package struct RecordedRequest: Sendable {
    /// 0-based arrival order.
    package var index: Int
    package var method: String
    package var path: String
    /// Header names lowercased; repeated headers joined with ", ".
    package var headers: [String: String]
    package var body: Data
    /// The body parsed as JSON, or nil if it is not JSON.
    package var json: JSONValue?
    /// Whether the body arrived with `Transfer-Encoding: chunked`.
    package var wasChunked: Bool
    package var receivedAt: ContinuousClock.Instant

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}
