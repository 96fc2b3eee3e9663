import Foundation

/// A wall-clock time of day with no date or zone (Postgres `time`, a fixture's `"11:00"`).
package struct LocalTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    package let hour: Int
    package let minute: Int
    package let second: Int

    package init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `HH:MM` or `HH:MM:SS` (fractional seconds, as Postgres may print, are dropped).
    package init?(iso text: some StringProtocol) {
        let whole = String(text)
        let main = whole.firstIndex(of: ".").map { String(whole[..<$0]) } ?? whole
        let parts: [Substring] = main.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
              parts.allSatisfy({ (p: Substring) in p.count == 2 && p.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        let s = parts.count == 3 ? Int(parts[2]) ?? -1 : 0
        self.init(hour: h, minute: m, second: s)
    }

    /// `HH:MM`, or `HH:MM:SS` when seconds are set.
    package var iso: String {
        zeroPadded(hour, 2) + ":" + zeroPadded(minute, 2) + (second == 0 ? "" : ":" + zeroPadded(second, 2))
    }

    /// `HH:MM`, seconds dropped, as messages and reminders show a time.
    package var hourMinute: String { zeroPadded(hour, 2) + ":" + zeroPadded(minute, 2) }

    package var description: String { iso }
    var secondsSinceMidnight: Int { hour * 3600 + minute * 60 + second }

    package static func < (a: LocalTime, b: LocalTime) -> Bool { a.secondsSinceMidnight < b.secondsSinceMidnight }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = LocalTime(iso: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an HH:MM time"))
        }
        self = value
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(iso)
    }
}
