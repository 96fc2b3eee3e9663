import Foundation
import JSONKit

/// One request as the fake server received it.
public struct RecordedRequest: Sendable {
    /// 0-based arrival order.
    public var index: Int
    public var method: String
    public var path: String
    /// Header names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]
    public var body: Data
    /// The body parsed as JSON, or nil if it is not JSON.
    public var json: JSONValue?
    /// Whether the body arrived with `Transfer-Encoding: chunked`.
    public var wasChunked: Bool
    public var receivedAt: ContinuousClock.Instant

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
