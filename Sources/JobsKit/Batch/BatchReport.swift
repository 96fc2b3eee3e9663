import Core
import Foundation

/// Human summaries of batch submit, collect and status.
package enum BatchReport {
    package static func text(_ s: BatchSubmitService.Summary) -> String {
        var lines: [String] = []
        switch s.status {
        case .submitted:
            lines.append("Batch \(s.batchID.uuidString.lowercased()) submitted as \(s.remoteBatchID ?? "?"): \(s.requests) request"
                         + (s.requests == 1 ? "" : "s") + " for \(s.conversations) conversation" + (s.conversations == 1 ? "" : "s") + ".")
            lines.append("Collect the answers within 24 h with: messageai-jobs batch collect")
        default:
            lines.append("Batch \(s.batchID.uuidString.lowercased()): nothing to send to the model.")
        }
        lines.append("\(s.newMessages) new messages" + (s.skippedMessages > 0 ? " (\(s.skippedMessages) kept from the model by the pre-filter)" : "")
                     + "; \(s.advanced) conversation(s) advanced without a request, \(s.failed) failed")
        for failure in s.failures { lines.append("FAILED \(failure.conversationID.uuidString.lowercased()): \(failure.error)") }
        return lines.joined(separator: "\n")
    }

    package static func text(_ summaries: [BatchCollectService.Summary]) -> String {
        guard !summaries.isEmpty else { return "No submitted batches to collect." }
        var lines: [String] = []
        for s in summaries {
            let counts = s.requestCounts.map { " (\($0.completed)/\($0.total) done, \($0.failed) failed)" } ?? ""
            lines.append("Batch \(s.batchID.uuidString.lowercased()) [\(s.remoteBatchID ?? "-")]: OpenAI says \(s.remoteStatus)\(counts); now \(s.status)")
            guard s.status != .submitted else { continue }
            lines.append("  \(s.applied) conversation(s) applied, \(s.failed) failed; rows: \(s.rowsInserted) new, \(s.rowsUpdated) updated; "
                         + "reminders created: \(s.remindersCreated)")
            let items = s.items.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            if !items.isEmpty { lines.append("  Found: " + items) }
            if let cost = s.cost { lines.append("  " + cost.line) }
            for failure in s.failures { lines.append("  FAILED \(failure.conversationID.uuidString.lowercased()): \(failure.error)") }
        }
        return lines.joined(separator: "\n")
    }

    package static func text(_ listings: [BatchListing]) -> String {
        guard !listings.isEmpty else { return "No batches yet." }
        return listings.map { b in
            let created = ISO8601Instant.string(b.createdAt)
            return "\(b.id.uuidString.lowercased())  \(b.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                + "remote \(b.remoteBatchID ?? "-") (\(b.remoteStatus ?? "-"))  \(b.requests) requests, \(b.conversations) conversations: "
                + "\(b.applied) applied, \(b.failed) failed  created \(created)"
                + (b.error.map { "\n    error: \($0.prefix(300))" } ?? "")
        }.joined(separator: "\n")
    }
}
