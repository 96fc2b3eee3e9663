import Foundation

/// Reads the `x-ratelimit-reset-*` durations OpenAI sends (`1s`, `6m0s`, `20ms`, `1h2m3.5s`); a bare number is seconds.
/// A reset beyond `longest` (a day) is a server's mistake and reads as unreadable (the limiter's cautious guess).
enum RateLimitReset {
    static func duration(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return seconds.isFinite && (0...longest).contains(seconds) ? .milliseconds(ofSeconds: seconds, rounding: .up) : nil }
        var total = 0.0
        var rest = Substring(trimmed)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let value = Double(number), value >= 0 else { return nil }
            switch unit {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            case "ms": total += value / 1000
            default: return nil
            }
        }
        return total.isFinite && total <= longest ? .milliseconds(ofSeconds: total, rounding: .up) : nil
    }

    static let longest: Double = 86_400
}
