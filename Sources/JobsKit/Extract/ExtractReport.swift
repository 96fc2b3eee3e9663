package import Extractors
import Foundation
package import Core

/// The human summary of an extraction.
package enum ExtractReport {
    package static func text(_ summary: ExtractService.Summary, features: [ExtractionFeature]) -> String {
        var lines = ["\(summary.conversationName) (\(summary.conversationID.uuidString.lowercased())): \(summary.messages) messages, "
                     + "\(summary.windows) window\(summary.windows == 1 ? "" : "s"), provider \(summary.provider)"
                     + (summary.dryRun ? ", dry run (nothing written)" : "")]
        let e = summary.extraction
        for feature in features {
            let count = e.count(feature)
            var line = "  " + feature.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0) + "\(count)"
            if let written = summary.written {
                let new = written.inserted[feature.rawValue] ?? 0, changed = written.updated[feature.rawValue] ?? 0
                let removed = written.removed[feature.rawValue] ?? 0
                line += "  (rows: \(new) new, \(changed) updated" + (removed > 0 ? ", \(removed) removed" : "") + ")"
            }
            lines.append(line)
            lines += items(feature, e).map { "      - " + $0 }
        }
        if let written = summary.written { lines.append("  reminders created \(written.remindersCreated)") }
        lines.append(String(format: "%d requests (%d re-asks), %d prompt + %d completion tokens (%d cached), %.2f s",
                            summary.requests, summary.reasks, summary.usage.promptTokens, summary.usage.completionTokens,
                            summary.usage.cachedPromptTokens, summary.seconds))
        if !summary.notes.isEmpty {
            lines.append("Notes:")
            lines += summary.notes.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// One report line per item of `feature` in `e`, written by the feature the items came from (any registry's).
    package static func items(_ feature: ExtractionFeature, _ e: Extraction) -> [String] {
        e.reportLines(feature)
    }

    /// The items of `feature` with their lines and fields, for structured output (`scan --json`'s `found`).
    package static func fields(_ feature: ExtractionFeature, _ e: Extraction) -> [(line: String, fields: JSONValue)] {
        e.reportItems(feature)
    }
}
