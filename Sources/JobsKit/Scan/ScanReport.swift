import Core
import Extractors
import Foundation

/// The human summary of a scan: totals, then what was found in the first `conversationsListed` conversations (at most
/// `itemsPerConversation` items each), saying how many were left out. `--json` has the same totals.
package enum ScanReport {
    /// Conversations whose findings the text summary lists.
    package static let conversationsListed = 20
    /// Items listed per conversation.
    package static let itemsPerConversation = 10

    package static func text(_ s: ScanService.Summary) -> String {
        var lines: [String] = []
        // A night that failed for someone says so before anything else (cron mail and log views show the first line).
        if s.status == .partial || s.status == .failed {
            var reasons: [String] = []
            if s.failed > 0 { reasons.append("\(s.failed) conversation(s) failed") }
            if let pass = s.proactive, pass.failed { reasons.append(ScanService.passFailure(pass)) }
            if let outage = s.outage { reasons.append(outage) } else if s.stoppedEarly != nil { reasons.append("it stopped early") }
            lines.append("\(s.status.rawValue.uppercased()): " + reasons.joined(separator: "; "))
        }
        lines += ["Scan \(s.runID.uuidString.lowercased()) (provider \(s.provider)): \(s.conversations) conversation"
                     + (s.conversations == 1 ? "" : "s") + " scanned, \(s.failed) failed, \(s.newMessages) new messages"
                     + (s.skippedMessages > 0 ? " (\(s.skippedMessages) kept from the model by the pre-filter)" : "")]
        if s.leasedElsewhere > 0 {
            let until = s.leasedUntil.map { " until " + ISO8601Instant.string($0) } ?? ""
            lines.append("\(s.leasedElsewhere) pending conversation" + (s.leasedElsewhere == 1 ? " is" : "s are")
                         + " held by another scanner's lease\(until); a scan after that takes them over.")
        } else if s.conversations + s.failed == 0, s.stoppedEarly == nil {
            lines.append("Nothing new since the last scan.")
        }
        if s.abandonedRuns > 0 {
            lines.append("Marked \(s.abandonedRuns) earlier scan run" + (s.abandonedRuns == 1 ? "" : "s") + " abandoned (killed before finishing).")
        }
        let items = s.items.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        if !items.isEmpty { lines.append("Found: " + items) }
        let grounded = s.grounding.sorted { $0.key < $1.key }.filter { $0.value.aligned + $0.value.recited + $0.value.dropped > 0 }
        if !grounded.isEmpty {
            lines.append("Evidence not verbatim: " + grounded.map { "\($0.key) \($0.value.aligned) aligned, \($0.value.recited) re-cited, "
                                                                   + "\($0.value.dropped) dropped" + droppedWhy($0.value) }
                .joined(separator: "; "))
        }
        lines.append("Rows: \(s.rowsInserted) new, \(s.rowsUpdated) updated; reminders created: \(s.remindersCreated)")
        lines.append(String(format: "%d requests, %d prompt + %d completion tokens (%d cached), %.2f s",
                            s.requests, s.usage.promptTokens, s.usage.completionTokens, s.usage.cachedPromptTokens, s.seconds))
        if let cost = s.cost { lines.append(cost.line + " for extraction (\(s.mode) requests)") }
        if let night = s.night { lines.append("Night's estimated cost: \(night.estimate)" + night.breakdown) }
        for found in s.found {
            lines.append("")
            lines.append(found.conversation + ":")
            lines += found.items.map { "  - " + $0.summary }
            if found.more > 0 { lines.append("  … and \(found.more) more finding" + (found.more == 1 ? "" : "s")) }
        }
        if s.conversationsWithFindings > s.found.count {
            lines.append("")
            let more = s.conversationsWithFindings - s.found.count
            lines.append("… \(more) more conversation" + (more == 1 ? "" : "s") + " with findings (rows in the feature tables)")
        }
        for failure in s.failures {
            lines.append("FAILED \(failure.conversationID.uuidString.lowercased()): \(failure.error)")
        }
        if s.failed > s.failures.count {
            let more = s.failed - s.failures.count
            lines.append("… \(more) more failed conversation" + (more == 1 ? "" : "s") + " (the first \(s.failures.count) are listed)")
        }
        for failure in s.quarantined {
            lines.append("QUARANTINED \(failure.conversationID.uuidString.lowercased()): it failed the same way on several scans "
                         + "in a row and is passed over until `messageai-jobs quarantine release ID`: \(failure.error)")
        }
        if s.quarantinedTotal > 0 {
            lines.append("\(s.quarantinedTotal) conversation" + (s.quarantinedTotal == 1 ? " is" : "s are")
                         + " in quarantine: `messageai-jobs quarantine list` shows them, `quarantine release ID|--all` lets the next scan try them again.")
        }
        if s.quarantineReleased > 0 {
            lines.append("Took \(s.quarantineReleased) conversation" + (s.quarantineReleased == 1 ? "" : "s") + " out of quarantine.")
        }
        if s.futureDatedMessages > 0 {
            lines.append("FUTURE-DATED: \(s.futureDatedMessages) new message" + (s.futureDatedMessages == 1 ? " was" : "s were")
                         + " dated after the scan read " + (s.futureDatedMessages == 1 ? "it" : "them") + "; read as of now, so later messages are still scanned")
        }
        if s.backlogged > 0 {
            lines.append("BACKLOG: \(s.backlogged) conversation" + (s.backlogged == 1 ? " has" : "s have")
                         + " more new messages than one scan reads: the newest were read, the older ones are read by the next scans")
        }
        for over in s.overCap {
            lines.append("OVER THE READ CAP \(over.conversationID.uuidString.lowercased()): only its newest messages were read; "
                         + "\(over.skippedMessages) older ones were skipped")
        }
        for failure in s.unrecordedFailures {
            lines.append("NOT RECORDED \(failure.conversationID.uuidString.lowercased()): its failure could not be written "
                         + "(\(failure.error)); its claim ends with this run and the next scan retries it")
        }
        if s.lostLeases > 0 {
            lines.append("LEASE LOST on \(s.lostLeases) conversation" + (s.lostLeases == 1 ? "" : "s")
                         + ": the claim expired before the rows were committed and another scanner took over (nothing of "
                         + "this run was written for " + (s.lostLeases == 1 ? "it" : "them") + "); raise --lease-seconds if extraction is slow: "
                         + s.lostLeaseConversations.map { $0.uuidString.lowercased() }.joined(separator: ", "))
        }
        if s.interrupted > 0 {
            lines.append("INTERRUPTED \(s.interrupted) conversation" + (s.interrupted == 1 ? "" : "s")
                         + " in flight: rolled back and released for the next scan")
        }
        if let outage = s.outage {
            lines.append("OUTAGE: \(outage). The run stopped asking and ends failed; \(s.deferred) conversation"
                         + (s.deferred == 1 ? " was" : "s were") + " given back untouched (failure counts unchanged) for the next scan.")
        } else if let reason = s.stoppedEarly {
            lines.append("STOPPED EARLY: \(reason); the conversations not reached are left for the next scan")
        }
        if let problem = s.runRecordError {
            lines.append("RUN NOT RECORDED: \(problem); what is above is committed, and the next run marks this run "
                         + "abandoned with the conversations it committed")
        }
        return lines.joined(separator: "\n")
    }

    /// The reasons counted among a feature's dropped items, e.g. " (1 addressing the assistant, 2 outside the date window)".
    static func droppedWhy(_ tally: GroundingTally) -> String {
        let reasons = [(tally.injections, "addressing the assistant"), (tally.dates, "outside the date window")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return reasons.isEmpty ? "" : " (" + reasons.joined(separator: ", ") + ")"
    }
}
