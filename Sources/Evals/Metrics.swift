/// Counts and the rates derived from them.
///
/// Empty denominators are defined, not NaN: precision is 1 when nothing was predicted (no false
/// claims were made), recall is 1 when nothing was expected (nothing was missed), and F1 is 0 when
/// precision + recall is 0. So a feature with nothing expected and nothing predicted scores 1/1/1,
/// and one with only misses (or only false alarms) scores F1 = 0.
public struct Metrics: Sendable, Hashable, Codable {
    public let tp: Int
    public let fp: Int
    public let fn: Int
    public let precision: Double
    public let recall: Double
    public let f1: Double

    public init(tp: Int, fp: Int, fn: Int) {
        self.tp = tp
        self.fp = fp
        self.fn = fn
        let p = tp + fp == 0 ? 1.0 : Double(tp) / Double(tp + fp)
        let r = tp + fn == 0 ? 1.0 : Double(tp) / Double(tp + fn)
        precision = p
        recall = r
        f1 = p + r == 0 ? 0 : 2 * p * r / (p + r)
    }

    /// Counts added, rates recomputed (micro-averaging).
    public static func + (a: Metrics, b: Metrics) -> Metrics {
        Metrics(tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn)
    }

    public static let zero = Metrics(tp: 0, fp: 0, fn: 0)
}

/// Share of matched pairs that got one field right; `accuracy` is nil when no pair was compared.
public struct FieldAccuracy: Sendable, Hashable, Codable {
    public let correct: Int
    public let total: Int
    public var accuracy: Double? { total == 0 ? nil : Double(correct) / Double(total) }

    public init(correct: Int, total: Int) {
        self.correct = correct
        self.total = total
    }

    enum CodingKeys: String, CodingKey { case correct, total, accuracy }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        correct = try c.decode(Int.self, forKey: .correct)
        total = try c.decode(Int.self, forKey: .total)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(correct, forKey: .correct)
        try c.encode(total, forKey: .total)
        try c.encode(accuracy, forKey: .accuracy)
    }
}
