import Extractors
import Foundation
package import Core

extension EvalReport {
    /// `report.md`: the numbers as tables for a pull request, then the main variant's misses per fixture.
    package func markdown() -> String {
        var out = markdownHeader()
        out += markdownScores()
        out += markdownVariants()
        out += markdownPreFilter()
        if let recordedAnswers { out += ["", "## Recorded answers", ""] + recordedAnswers.lines.map { "- " + Self.md($0.trimmingCharacters(in: .whitespaces)) } }
        if let baseline { out += markdownBaseline(baseline) }
        if let main { out += markdownMisses(main) }
        out.append("")
        return out.joined(separator: "\n")
    }

    /// The title, what was run, the commit and prompt fingerprints, and a banner when extractions failed.
    func markdownHeader() -> [String] {
        var out: [String] = ["# Extractor eval", ""]
        if let gate {
            out.append("**Gate: \(Self.md(gate.headline))**")
            out.append("")
            for check in gate.checks where !check.passed { out.append("- ✗ \(Self.code(check.gate)): \(Self.md(check.detail))") }
            for check in gate.checks where check.passed { out.append("- ✓ \(Self.code(check.gate)): \(Self.md(check.detail))") }
            out.append("")
        }
        out.append("\(fixtureCount) fixtures from \(Self.code(fixturesPath)), run \(createdAt). Features: \(features.map(\.rawValue).joined(separator: ", ")).")
        let prompts = variants.filter { $0.provider != "rules" }.flatMap { v in features.compactMap { v.prompts[$0] } }
        var seen = Set<String>()
        let shown = prompts.filter { $0.sha256 != nil && seen.insert("\($0.id)@\($0.version)").inserted }
        if !shown.isEmpty || gitCommit != nil {
            out.append("")
            out.append((gitCommit.map { "Commit \(Self.code($0)). " } ?? "")
                       + (shown.isEmpty ? "" : "Prompts: " + shown.map { Self.code("\($0.id)@\($0.version) \(($0.sha256 ?? "").prefix(12))") }.joined(separator: ", ") + "."))
        }
        let failed = variants.filter { !$0.errors.isEmpty }
        if !failed.isEmpty {
            out.append("")
            out.append("> **Extractions failed: these numbers do not measure the prompts.**")
            for variant in failed { out.append("> - \(Self.md(EvalGates.failedExtractions(variant)))") }
        }
        return out
    }

    /// P, R and F1 per feature and variant, with ΔF1 of each compared variant against the main one.
    func markdownScores() -> [String] {
        var out = ["", "## Scores", ""]
        let compares = main == nil ? [] : variants.filter { $0.role == .compare }
        out.append("| feature | " + variants.map { "\(Self.md($0.id)) P | R | F1" }.joined(separator: " | ")
                   + compares.map { " | ΔF1 \(Self.md($0.id))" }.joined() + " |")
        out.append("|---|" + variants.map { _ in "---:|---:|---:" }.joined(separator: "|") + compares.map { _ in "|---:" }.joined() + "|")
        func row(_ name: String, _ metrics: (EvalVariantReport) -> Metrics?) -> String {
            "| \(name) | " + variants.map { variant in
                guard let m = metrics(variant) else { return "- | - | -" }
                return "\(EvalFormat.rate(m.precision)) | \(EvalFormat.rate(m.recall)) | \(EvalFormat.rate(m.f1))"
            }.joined(separator: " | ") + compares.map { variant in
                guard let main, let a = metrics(main), let b = metrics(variant) else { return " | -" }
                return " | \(EvalFormat.delta(b.f1 - a.f1))"
            }.joined() + " |"
        }
        for feature in features { out.append(row(feature.rawValue) { $0.score.features[feature]?.metrics }) }
        out.append(row("**micro**") { $0.score.micro })
        if variants.contains(where: { $0.nights != nil }) {
            out.append(row("nights: micro") { $0.nights?.micro })
            out.append(row("last nights") { $0.nights?.lastNights })
            out.append("")
            out.append("Nights shown exactly right: " + variants.map { v in
                "\(Self.md(v.id)) " + (v.nights.map { "\($0.exact)/\($0.nights.count) (\(EvalFormat.rate($0.exactShare)))" } ?? "-")
            }.joined(separator: ", "))
        }
        return out
    }

    /// One row per variant (provider, prompts, requests, tokens, cache, failures), then each failed extraction.
    func markdownVariants() -> [String] {
        var out = ["", "## Variants", ""]
        out.append("| variant | role | provider / model | prompts | requests | tokens | cache | failed |")
        out.append("|---|---|---|---|---:|---|---|---:|")
        for v in variants {
            out.append("| \(Self.md(v.id)) | \(v.role.rawValue) | \(Self.md(v.provider)) / \(Self.md(v.model)) | \(Self.md(EvalFormat.prompts(v, features))) "
                       + "| \(v.requests) (\(v.reasks) re-asks) | \(EvalFormat.usage(v.usage)) | \(Self.md(EvalFormat.cache(v.cache))) | \(v.errors.count) |")
        }
        let errors = variants.flatMap { v in v.errors.map { (v.id, $0) } }
        if !errors.isEmpty {
            out.append("")
            out.append("Failed extractions (counted as predicting nothing):")
            out.append("")
            for (variant, error) in errors {
                out.append("- \(Self.code(variant)) \(Self.md(error.fixture)) / \(error.unit): \(Self.md(String(error.detail.prefix(400))))")
            }
        }
        return out
    }

    /// What the scan's pre-filter would drop, per feature, and each expected item it would lose.
    func markdownPreFilter() -> [String] {
        var out = ["", "## Pre-filter", ""]
        out.append("The scan's pre-filter drops \(preFilter.droppedMessages) of \(preFilter.messages) fixture messages. "
                   + "Expected items that cite only dropped messages (must be 0): **\(preFilter.totalMisses)**.")
        out.append("")
        out.append("| feature | expected items | citing only dropped messages |")
        out.append("|---|---:|---:|")
        for feature in features {
            let count = preFilter.features[feature] ?? PreFilterCount()
            out.append("| \(feature.rawValue) | \(count.expected) | \(count.onlyDropped) |")
        }
        if !preFilter.misses.isEmpty { out.append("") }
        for miss in preFilter.misses {
            out.append("- \(Self.md(miss.fixture)) \(miss.feature.rawValue)[\(miss.expectedIndex)]: sources \(Self.md(miss.sources.joined(separator: ", ")))")
        }
        return out
    }

    /// The main variant against a `--baseline` report: F1, ΔP and ΔR per feature, then the fixtures that regressed.
    func markdownBaseline(_ baseline: BaselineComparison) -> [String] {
        var out = ["", "## Versus baseline", ""]
        out.append("Main variant against \(Self.code(baseline.path)).")
        out.append("")
        out.append("| feature | F1 before | F1 now | ΔF1 | ΔP | ΔR |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for feature in features {
            guard let d = baseline.features[feature] else { continue }
            out.append("| \(feature.rawValue) | \(EvalFormat.rate(d.baseline.f1)) | \(EvalFormat.rate(d.current.f1)) | \(EvalFormat.delta(d.f1Delta)) "
                       + "| \(EvalFormat.delta(d.precisionDelta)) | \(EvalFormat.delta(d.recallDelta)) |")
        }
        let m = baseline.micro
        out.append("| **micro** | \(EvalFormat.rate(m.baseline.f1)) | \(EvalFormat.rate(m.current.f1)) | \(EvalFormat.delta(m.f1Delta)) "
                   + "| \(EvalFormat.delta(m.precisionDelta)) | \(EvalFormat.delta(m.recallDelta)) |")
        out.append("")
        if baseline.regressions.isEmpty {
            out.append("No fixture regressed.")
        } else {
            out.append("Regressed fixtures:")
            out.append("")
            for r in baseline.regressions {
                out.append("- \(Self.md(r.fixture)): F1 \(EvalFormat.rate(r.baseline.f1)) → \(EvalFormat.rate(r.current.f1)), "
                           + "TP \(r.baseline.tp) → \(r.current.tp) (\(r.features.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        return out
    }

    /// The main variant's false negatives and false positives, per fixture and feature.
    func markdownMisses(_ main: EvalVariantReport) -> [String] {
        var out = ["", "## Misses of \(Self.code(main.id))", ""]
        var any = false
        for fixture in main.score.fixtures {
            for feature in features {
                guard let detail = fixture.features[feature], !detail.falsePositives.isEmpty || !detail.falseNegatives.isEmpty else { continue }
                any = true
                out.append("- **\(Self.md(fixture.fixture))** \(feature.rawValue)")
                for fn in detail.falseNegatives { out.append("  - FN expected: \(Self.md(Self.itemText(fn.expected)))") }
                for fp in detail.falsePositives {
                    out.append("  - FP predicted: \(Self.md(Self.itemText(fp.predicted)))" + (fp.dateMistake ? " (date mistake)" : ""))
                }
            }
        }
        if !any { out.append("None.") }
        return out
    }

    /// Text shown literally in Markdown, one line: CommonMark backslash-escapes every character that could start
    /// markup (emphasis, links, code, inline HTML, entities, table cells), so `Sal's <b>` reads as written.
    static func md(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "&", "#", "~", "!", "{", "}": out += "\\" + String(character)
            case "\r", "\n", "\r\n": out += " "
            default: out.append(character)
            }
        }
        return out
    }

    /// A code span: backslashes are literal there, so only backticks and line breaks are replaced.
    static func code(_ text: String) -> String {
        "`" + text.replacingOccurrences(of: "`", with: "'").split(whereSeparator: \.isNewline).joined(separator: " ") + "`"
    }

    /// Fields in reading order: what, when, where, how, then the cited messages.
    static let fieldOrder = ["title", "event", "decision", "task", "message", "date", "event_date", "deadline", "time",
                             "location", "category", "priority", "action_required", "requested_by", "status", "response", "source",
                             "date_phrase", "evidence"]

    /// `title: Picnic · date: 2026-03-07 · source: m1, m4` — non-null fields in reading order.
    package static func itemText(_ item: JSONValue) -> String {
        guard case .object(let object) = item else { return item.serialized() }
        let rank = Dictionary(uniqueKeysWithValues: fieldOrder.enumerated().map { ($0.element, $0.offset) })
        let fields = object.map { (key: $0.key, value: $0.value) }
            .sorted { (rank[$0.key] ?? fieldOrder.count, $0.key) < (rank[$1.key] ?? fieldOrder.count, $1.key) }
        return fields.compactMap { key, value -> String? in
            switch value {
            case .null: nil
            case .string(let s): "\(key): \(s)"
            case .array(let items): "\(key): " + items.map { $0.stringValue ?? $0.serialized() }.joined(separator: ", ")
            default: "\(key): \(value.serialized())"
            }
        }.joined(separator: " · ")
    }
}
