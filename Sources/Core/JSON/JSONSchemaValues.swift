/// A JSON value under JSON Schema's equality, for `enum`, `const` and `uniqueItems`: numbers compare by value
/// (1 == 1.0) and strings by code points. Swift's `String ==` would equate "\u{E4}" with "a\u{308}", which the spec
/// (and the suite) treat as different.
enum SchemaEquatableValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string([Unicode.Scalar])
    case array([SchemaEquatableValue])
    case object([[Unicode.Scalar]: SchemaEquatableValue])

    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .number(let d):
            if d.rounded() == d, d >= -9.223_372_036_854_775_808e18, d < 9.223_372_036_854_775_808e18 {
                self = .integer(Int64(d))
            } else {
                self = .number(d)
            }
        case .string(let s): self = .string(Array(s.unicodeScalars))
        case .array(let items): self = .array(items.map(SchemaEquatableValue.init))
        case .object(let object):
            var members: [[Unicode.Scalar]: SchemaEquatableValue] = [:]
            for (key, member) in object { members[Array(key.unicodeScalars)] = SchemaEquatableValue(member) }
            self = .object(members)
        }
    }
}

extension JSONValue {
    /// A short rendering for messages: JSON text cut to `limit` characters.
    func excerpt(limit: Int = 60) -> String {
        let text = serialized()
        return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

/// Orders two numbers exactly when both are integers, by Double otherwise. Nil when either is not a number.
func compareNumbers(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
    if case .integer(let a) = lhs, case .integer(let b) = rhs { return a < b ? -1 : (a == b ? 0 : 1) }
    guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return nil }
    return a < b ? -1 : (a == b ? 0 : 1)
}

/// Whether `value` is an integral multiple of `divisor` (both numbers, divisor > 0).
func isMultiple(_ value: JSONValue, of divisor: JSONValue) -> Bool {
    if case .integer(let a) = value, case .integer(let b) = divisor { return a % b == 0 }
    guard let a = value.doubleValue, let b = divisor.doubleValue else { return true }
    let quotient = a / b
    // An overflowing quotient can only come from a value that is not a multiple (the suite's "float division = inf").
    guard quotient.isFinite else { return false }
    let nearest = quotient.rounded()
    // Decimal divisors like 0.0001 are not exact in binary (0.0075 / 0.0001 = 74.99999999999999):
    // accept quotients within a few units in the last place of an integer.
    return abs(quotient - nearest) <= 4 * quotient.magnitude.ulp
}
