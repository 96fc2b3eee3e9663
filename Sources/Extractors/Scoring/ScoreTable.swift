import Foundation

extension EvalScore {
    /// A plain-text summary for terminals: one row per feature plus the micro average, then field accuracy.
    package func table() -> String {
        func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - s.count))
            return left ? s + fill : fill + s
        }
        func rate(_ x: Double) -> String { String(format: "%.3f", x) }
        func rateOrDash(_ x: Double?) -> String { x.map(rate) ?? "—" }
        func row(_ name: String, _ m: Metrics, _ dateMistakes: String) -> String {
            pad(name, 18, left: true) + pad(String(m.tp), 5) + pad(String(m.fp), 5) + pad(String(m.fn), 5)
                + pad(rateOrDash(m.precision), 11) + pad(rate(m.recall), 8) + pad(rate(m.f1), 7) + pad(dateMistakes, 14)
        }
        // The shipping features in their order, then any other scored feature by name.
        let order = ScoringRegistry.shipping.sorted(features.keys)
        var lines = [pad("feature", 18, left: true) + pad("TP", 5) + pad("FP", 5) + pad("FN", 5)
            + pad("precision", 11) + pad("recall", 8) + pad("F1", 7) + pad("date mistakes", 14)]
        for feature in order {
            guard let score = features[feature] else { continue }
            lines.append(row(feature.rawValue, score.metrics, String(score.dateMistakes)))
        }
        lines.append(row("micro", micro, ""))

        var accuracy: [String] = []
        for feature in order {
            guard let score = features[feature] else { continue }
            for field in score.fieldAccuracy.keys.sorted() {
                guard let a = score.fieldAccuracy[field] else { continue }
                let value = a.accuracy.map(rate) ?? "-"
                accuracy.append("  " + pad("\(feature.rawValue).\(field)", 34, left: true) + pad("\(a.correct)/\(a.total)", 8) + pad(value, 7))
            }
        }
        if !accuracy.isEmpty {
            lines.append("")
            lines.append("field accuracy on matched pairs:")
            lines += accuracy
        }
        lines.append("")
        lines.append("\(fixtures.count) fixtures")
        return lines.joined(separator: "\n")
    }
}
