/// Counts and the rates derived from them.
///
/// Precision with nothing predicted is undefined (nil, `null` in JSON): a model that answered nothing, or
/// never answered, made no claim that could be right, and must not show a perfect score. Recall is 1 when
/// nothing was expected (nothing was missed). F1 counts an undefined precision as 1, so a feature with
/// nothing expected and nothing predicted scores F1 = 1 (correct silence), one with only misses F1 = 0,
/// and F1 is 0 when precision + recall is 0.
package struct Metrics: Sendable, Hashable, Codable {
    package let tp: Int
    package let fp: Int
    package let fn: Int
    /// Nil when nothing was predicted (`tp + fp == 0`).
    package let precision: Double?
    package let recall: Double
    package let f1: Double

    package init(tp: Int, fp: Int, fn: Int) {
        self.tp = tp
        self.fp = fp
        self.fn = fn
        let p: Double? = tp + fp == 0 ? nil : Double(tp) / Double(tp + fp)
        let r = tp + fn == 0 ? 1.0 : Double(tp) / Double(tp + fn)
        precision = p
        recall = r
        let pf = p ?? 1
        f1 = pf + r == 0 ? 0 : 2 * pf * r / (pf + r)
    }

    /// Counts added, rates recomputed (micro-averaging).
    package static func + (a: Metrics, b: Metrics) -> Metrics {
        Metrics(tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn)
    }

    package static let zero = Metrics(tp: 0, fp: 0, fn: 0)

    /// Encoded with `precision: null` when undefined (the synthesized coder would drop the key).
    enum CodingKeys: String, CodingKey { case tp, fp, fn, precision, recall, f1 }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(tp: try c.decode(Int.self, forKey: .tp), fp: try c.decode(Int.self, forKey: .fp), fn: try c.decode(Int.self, forKey: .fn))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tp, forKey: .tp)
        try c.encode(fp, forKey: .fp)
        try c.encode(fn, forKey: .fn)
        try c.encode(precision, forKey: .precision)
        try c.encode(recall, forKey: .recall)
        try c.encode(f1, forKey: .f1)
    }
}

/// Share of matched pairs that got one field right; `accuracy` is nil when no pair was compared.
package struct FieldAccuracy: Sendable, Hashable, Codable {
    package let correct: Int
    package let total: Int
    package var accuracy: Double? { total == 0 ? nil : Double(correct) / Double(total) }

    package init(correct: Int, total: Int) {
        self.correct = correct
        self.total = total
    }

    enum CodingKeys: String, CodingKey { case correct, total, accuracy }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        correct = try c.decode(Int.self, forKey: .correct)
        total = try c.decode(Int.self, forKey: .total)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(correct, forKey: .correct)
        try c.encode(total, forKey: .total)
        try c.encode(accuracy, forKey: .accuracy)
    }
}
