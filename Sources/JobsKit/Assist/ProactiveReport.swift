import Foundation

/// The human summary of a proactive pass: counts, then each shown user's open findings, most important first, at
/// most `findingsPerUser` of them and how many were left out (a night can leave thousands open for one user; `--json`
/// lists them all).
package enum ProactiveReport {
    /// Findings listed per user in the text summary.
    package static let findingsPerUser = 10

    package static func text(_ s: ProactivePass.Summary) -> String {
        let kinds = s.findings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = ["Proactive pass: \(s.usersPassed) user" + (s.usersPassed == 1 ? "" : "s") + " checked"
                     + (s.usersFailed > 0 ? ", \(s.usersFailed) failed" : "")
                     + "; open findings: " + (kinds.isEmpty ? "none" : kinds)
                     + " (\(s.written.inserted) new, \(s.written.resolved) resolved)"]
        if s.narrated + s.narrationFailed > 0 {
            lines.append(String(format: "Assistant: %d runs (%d failed), %d items dropped by the check, %d reminders; %d prompt + %d completion tokens",
                                s.narrated, s.narrationFailed, s.dropped, s.remindersCreated, s.usage.promptTokens, s.usage.completionTokens))
        }
        if s.narrationSkipped > 0 {
            lines.append("Assistant: \(s.narrationSkipped) user" + (s.narrationSkipped == 1 ? "" : "s")
                         + " skipped (findings unchanged since their last run, or another pass has them)")
        }
        for user in s.shown where !user.findings.isEmpty {
            lines.append("")
            lines.append("For \(user.name):")
            lines += user.findings.prefix(findingsPerUser).map(line)
            let more = user.findings.count - findingsPerUser
            if more > 0 { lines.append("  … and \(more) more finding" + (more == 1 ? "" : "s")) }
        }
        let shownWithFindings = s.shown.filter { !$0.findings.isEmpty }.count
        if s.usersWithFindings > shownWithFindings {
            lines.append("")
            let more = s.usersWithFindings - shownWithFindings
            lines.append("… and \(more) more user" + (more == 1 ? "" : "s") + " with open findings (assistant_findings)")
        }
        lines += s.errors.prefix(5).map { "FAILED \($0)" }
        if s.errors.count > 5 { lines.append("… and \(s.errors.count - 5) more failure" + (s.errors.count == 6 ? "" : "s")) }
        return lines.joined(separator: "\n")
    }

    /// "  ! [conflict] Saturday Nov 28: ..." with the assistant's explanation below when there is one.
    package static func line(_ f: OpenFinding) -> String {
        let mark = f.severity == "high" ? "!" : "-"
        var text = "  \(mark) [\(f.kind)] \(f.suggestion)"
        if let explanation = f.explanation, !explanation.isEmpty { text += "\n      assistant: \(explanation)" }
        return text
    }
}
