import Chrono
import Foundation

/// An ISO 8601 instant that must carry its UTC offset (`2026-03-02T08:14:00-05:00` or `...Z`).
///
/// Kept with its text so reports show what the fixture says, and parsed by hand so a missing offset
/// is an error instead of a silent guess at the machine's time zone.
public struct Timestamp: Sendable, Hashable, Codable, CustomStringConvertible {
    public let text: String
    public let date: Date
    /// The offset written in the text, in seconds east of UTC.
    public let utcOffsetSeconds: Int

    /// Accepts `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)`; nil for anything else or an impossible date.
    public init?(iso text: String) {
        let chars = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= chars.count else { return nil }
            var value = 0
            for c in chars[start..<(start + count)] {
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        func byte(_ i: Int) -> UInt8? { i < chars.count ? chars[i] : nil }
        guard let year = number(0, 4), byte(4) == UInt8(ascii: "-"), let month = number(5, 2),
              byte(7) == UInt8(ascii: "-"), let day = number(8, 2),
              byte(10) == UInt8(ascii: "T") || byte(10) == UInt8(ascii: "t"),
              let hour = number(11, 2), byte(13) == UInt8(ascii: ":"), let minute = number(14, 2),
              let localDate = LocalDate(year: year, month: month, day: day),
              hour < 24, minute < 60 else { return nil }
        var i = 16
        var second = 0.0
        if byte(i) == UInt8(ascii: ":") {
            guard let s = number(i + 1, 2), s < 60 else { return nil }
            second = Double(s)
            i += 3
            if byte(i) == UInt8(ascii: ".") {
                var j = i + 1
                var fraction = "0."
                while let c = byte(j), c >= 48, c <= 57 { fraction.append(Character(UnicodeScalar(c))); j += 1 }
                guard j > i + 1 else { return nil }
                second += Double(fraction) ?? 0
                i = j
            }
        }
        let offset: Int
        if byte(i) == UInt8(ascii: "Z") || byte(i) == UInt8(ascii: "z") {
            offset = 0
            i += 1
        } else if let sign = byte(i), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
                  let oh = number(i + 1, 2), byte(i + 3) == UInt8(ascii: ":"), let om = number(i + 4, 2),
                  oh < 24, om < 60 {
            offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == chars.count else { return nil }
        let local = Double(localDate.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60) + second
        self.text = text
        self.utcOffsetSeconds = offset
        self.date = Date(timeIntervalSince1970: local - Double(offset))
    }

    /// The calendar date of this instant in a time zone: what relative dates in a message resolve from.
    public func localDate(in timeZone: TimeZone) -> LocalDate { LocalDate(date, in: timeZone) }

    public var description: String { text }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Timestamp(iso: text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "'\(text)' is not an ISO 8601 date-time with a UTC offset"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
