import AgentRuntime
import Extractors
import Foundation

/// Number formatting shared by the terminal, Markdown and HTML reports.
enum EvalFormat {
    static func rate(_ x: Double) -> String { String(format: "%.3f", x) }

    /// An undefined rate (precision with nothing predicted) is a dash, never a number.
    static func rate(_ x: Double?) -> String { x.map { String(format: "%.3f", $0) } ?? "—" }

    static func delta(_ x: Double) -> String {
        let rounded = (x * 1000).rounded() / 1000
        return rounded == 0 ? "±0.000" : String(format: "%+.3f", rounded)
    }

    /// A change between two rates, a dash when either is undefined.
    static func delta(_ x: Double?) -> String { x.map { delta($0) } ?? "—" }

    static func usage(_ u: TokenUsage) -> String {
        "prompt \(u.promptTokens), completion \(u.completionTokens), cached \(u.cachedPromptTokens)"
    }

    static func prompts(_ variant: EvalVariantReport, _ features: [ExtractionFeature]) -> String {
        features.compactMap { variant.prompts[$0].map { "\($0.id)@\($0.version)" } }.joined(separator: " ")
    }

    static func cache(_ cache: CacheSummary?) -> String {
        guard let cache else { return "no LLM" }
        return "\(cache.hits) hits, \(cache.misses) misses (network tokens: \(usage(cache.networkUsage)))"
    }

    /// One fixture's counts over the scored features.
    static func metrics(_ score: FixtureScore, _ features: [ExtractionFeature]) -> Metrics {
        features.compactMap { score.features[$0]?.metrics }.reduce(Metrics.zero, +)
    }
}

extension EvalReport {
    /// The terminal summary: P/R/F1 per feature and variant side by side, then run facts, pre-filter and baseline.
    package func summaryText() -> String {
        func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - s.count))
            return left ? s + fill : fill + s
        }
        let cell = 21
        var lines: [String] = []
        if let gate { lines += ["gate: \(gate.headline)"] + gate.checks.filter { !$0.passed }.map { "  FAIL \($0.gate): \($0.detail)" } + [""] }
        lines += ["\(fixtureCount) fixtures from \(fixturesPath); features: \(features.map(\.rawValue).joined(separator: ", "))", ""]
        lines.append(pad("", 18, left: true) + variants.map { pad($0.id, cell) }.joined())
        lines.append(pad("feature", 18, left: true) + variants.map { _ in pad("P     R     F1", cell) }.joined())
        func row(_ name: String, _ metrics: (EvalVariantReport) -> Metrics?) -> String {
            pad(name, 18, left: true) + variants.map { variant in
                guard let m = metrics(variant) else { return pad("-", cell) }
                return pad("\(EvalFormat.rate(m.precision)) \(EvalFormat.rate(m.recall)) \(EvalFormat.rate(m.f1))", cell)
            }.joined()
        }
        for feature in features { lines.append(row(feature.rawValue) { $0.score.features[feature]?.metrics }) }
        lines.append(row("micro") { $0.score.micro })
        if variants.contains(where: { $0.nights != nil }) {
            lines.append(row("nights: micro") { $0.nights?.micro })
            lines.append(row("last nights") { $0.nights?.lastNights })
            lines.append(pad("exactly right", 18, left: true) + variants.map { variant in
                pad(variant.nights.map { "\($0.exact)/\($0.nights.count) = \(EvalFormat.rate($0.exactShare))" } ?? "-", cell)
            }.joined())
        }
        lines.append("")
        if let main = variants.first(where: { $0.role == .main }), let nights = main.nights {
            lines.append("nights of the \(main.id) variant (F1 per night, * exactly right):")
            var order: [String] = []
            for night in nights.nights where !order.contains(night.fixture) { order.append(night.fixture) }
            for fixture in order {
                let cells = nights.nights.filter { $0.fixture == fixture }
                    .map { EvalFormat.rate($0.metrics.f1) + ($0.exact ? "*" : " ") }.joined(separator: " ")
                lines.append("  \(pad(fixture, 30, left: true)) \(cells)")
            }
            lines.append("")
        }
        for variant in variants {
            lines.append("\(variant.id) [\(variant.role.rawValue)]: \(variant.label)")
            lines.append("  prompts: \(EvalFormat.prompts(variant, features)); model: \(variant.model)")
            lines.append("  \(variant.requests) requests, \(variant.reasks) re-asks; tokens: \(EvalFormat.usage(variant.usage)); cache: \(EvalFormat.cache(variant.cache))")
            let grounding = features.map { ($0, variant.grounding?[$0] ?? GroundingCounts()) }
            let counted = grounding.filter { !$0.1.isZero }
            lines.append("  grounding:" + (counted.isEmpty ? " no items" : ""))
            for (feature, counts) in counted { lines.append("    \(pad(feature.rawValue, 18, left: true)) \(counts.line)") }
            if let refusals = variant.refusals, !refusals.isEmpty {
                lines.append("  reconciliation refused: " + refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            if let cost = variant.cost { lines.append("  " + cost.line + (variant.cache != nil ? " for the tokens sent over the network" : "")) }
            if !variant.errors.isEmpty {
                lines.append("  \(variant.errors.count) failed extractions (counted as predicting nothing):")
                for error in variant.errors.prefix(20) {
                    lines.append("    \(error.fixture) \(error.unit): \(error.detail.prefix(300))")
                }
                if variant.errors.count > 20 { lines.append("    ... \(variant.errors.count - 20) more in report.json") }
            }
        }
        lines.append("")
        let perFeature = features.map { "\($0.rawValue) \(preFilter.features[$0]?.onlyDropped ?? 0)" }.joined(separator: ", ")
        lines.append("pre-filter: drops \(preFilter.droppedMessages) of \(preFilter.messages) messages; expected items citing only dropped messages: \(preFilter.totalMisses) (\(perFeature))")
        for miss in preFilter.misses.prefix(20) {
            lines.append("  \(miss.fixture) \(miss.feature.rawValue)[\(miss.expectedIndex)] sources \(miss.sources.joined(separator: ","))")
        }
        if let recordedAnswers {
            lines.append("")
            lines += recordedAnswers.lines
        }
        if let baseline {
            lines.append("")
            lines.append("versus baseline \(baseline.path) (main variants):")
            for feature in features {
                guard let d = baseline.features[feature] else { continue }
                lines.append("  " + pad(feature.rawValue, 18, left: true)
                             + "F1 \(EvalFormat.rate(d.baseline.f1)) → \(EvalFormat.rate(d.current.f1)) (\(EvalFormat.delta(d.f1Delta)))"
                             + "  P \(EvalFormat.delta(d.precisionDelta))  R \(EvalFormat.delta(d.recallDelta))")
            }
            let m = baseline.micro
            lines.append("  " + pad("micro", 18, left: true) + "F1 \(EvalFormat.rate(m.baseline.f1)) → \(EvalFormat.rate(m.current.f1)) (\(EvalFormat.delta(m.f1Delta)))")
            if baseline.regressions.isEmpty {
                lines.append("  no fixture regressed")
            } else {
                lines.append("  \(baseline.regressions.count) fixtures regressed:")
                for r in baseline.regressions {
                    lines.append("    \(r.fixture): F1 \(EvalFormat.rate(r.baseline.f1)) → \(EvalFormat.rate(r.current.f1)), TP \(r.baseline.tp) → \(r.current.tp)"
                                 + (r.features.isEmpty ? "" : " (\(r.features.map(\.rawValue).joined(separator: ", ")))"))
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
