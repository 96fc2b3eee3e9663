import Foundation
import Core

/// The human summary of an assistant run: how it ran, then what the parent sees (`AssistantView`, each finding once,
/// in the assistant's rank with its notes), what the check dropped, and its tokens and cost.
package enum AssistReport {
    package static func text(_ s: AssistService.Summary) -> String {
        var lines = ["Assistant for \(s.userName): \(s.steps) steps, \(s.toolCalls) tool calls, stopped: \(s.stopReason)"]
        if s.findings == nil {
            lines.append("No valid answer." + (s.finalText.map { " Last text: \($0.prefix(300))" } ?? ""))
        }
        lines.append(s.view.text)
        for violation in s.dropped {
            lines.append("DROPPED from the answer (\(violation.section)): \(violation.reason)")
        }
        lines.append(String(format: "%d prompt + %d completion tokens; %.2f s", s.usage.promptTokens, s.usage.completionTokens, s.seconds))
        lines.append(s.cost.line)
        return lines.joined(separator: "\n")
    }
}
