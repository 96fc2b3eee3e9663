import Foundation
import Core

/// The human summary of an assistant run.
package enum AssistReport {
    package static func text(_ s: AssistService.Summary) -> String {
        var lines = ["Assistant for \(s.userName): \(s.steps) steps, \(s.toolCalls) tool calls, stopped: \(s.stopReason)"]
        if let findings = s.findings {
            if let summary = findings["summary"]?.stringValue { lines.append(summary) }
            for (key, title) in [("conflicts", "Conflicts"), ("pending_rsvps", "Pending RSVPs"), ("near_deadlines", "Near deadlines")] {
                let items = findings[key]?.arrayValue ?? []
                guard !items.isEmpty else { continue }
                lines.append("\(title):")
                lines += items.map { "  - " + ($0["description"]?.stringValue ?? $0["note"]?.stringValue ?? $0.serialized()) }
            }
            let actions = findings["suggested_actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !actions.isEmpty { lines.append("Suggested:"); lines += actions.map { "  - " + $0 } }
        } else {
            lines.append("No valid answer." + (s.finalText.map { " Last text: \($0.prefix(300))" } ?? ""))
        }
        if !s.codeFindings.isEmpty {
            lines.append("Findings (computed by code):")
            lines += s.codeFindings.map(ProactiveReport.line)
        }
        for violation in s.dropped {
            lines.append("DROPPED from the answer (\(violation.section)): \(violation.reason)")
        }
        lines.append(String(format: "Reminders created: %d; %d prompt + %d completion tokens; %.2f s",
                            s.remindersCreated, s.usage.promptTokens, s.usage.completionTokens, s.seconds))
        lines.append(s.cost.line)
        return lines.joined(separator: "\n")
    }
}
