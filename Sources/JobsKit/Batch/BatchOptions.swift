package import Extractors
package import Foundation

/// How a batch scan is submitted.
package struct BatchOptions: Sendable {
    /// Which conversations, features, context and pre-filter: the same choices as the synchronous scan. Its
    /// `leaseSeconds` covers only the preparation; `owner` is replaced by `batch:<id>`.
    package var scan = ScanOptions()
    /// OpenAI's completion window (24 h, the only one offered).
    var completionWindowSeconds = 24 * 3600
    /// Extra lease time after the window so collect can run late; after it a synchronous scan may take over.
    var leaseSlackSeconds = 24 * 3600

    package init() {}

    /// How long conversations of a submitted batch stay claimed.
    var submittedLeaseSeconds: Int { completionWindowSeconds + leaseSlackSeconds }

    /// The lease owner that marks a conversation as waiting in this batch.
    package static func owner(_ batchID: UUID) -> String { "batch:\(batchID.uuidString.lowercased())" }

    /// `<batch>:<conversation>:<feature>:<start>-<end>`: unique per request and readable in OpenAI's dashboard.
    package static func customID(batchID: UUID, conversationID: UUID, feature: ExtractionFeature, window: Range<Int>) -> String {
        "\(batchID.uuidString.lowercased()):\(conversationID.uuidString.lowercased()):\(feature.rawValue):\(window.lowerBound)-\(window.upperBound)"
    }
}
