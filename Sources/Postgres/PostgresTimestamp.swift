import Chrono
import Foundation

/// Text form of `timestamptz` both ways, with microseconds, independent of the session's TimeZone setting.
enum PostgresTimestamp {
    /// `2026-03-02T13:14:00.123456Z`, which Postgres reads as an instant whatever the session zone.
    static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = Int64(interval.rounded(.down))
        var micros = Int64(((interval - Double(seconds)) * 1_000_000).rounded())
        if micros >= 1_000_000 { seconds += 1; micros -= 1_000_000 }
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let day = LocalDate(daysSinceEpoch: days)
        return String(
            format: "%@T%02d:%02d:%02d.%06dZ", day.iso, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60, Int(micros))
    }

    /// Parses Postgres's ISO output: `2026-03-02 13:14:00[.ffffff]+00[:00[:00]]` (a `T` separator is accepted too).
    static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        // Read byte-wise: every message row carries a timestamp, and going through `LocalDate(iso:)` and
        // `LocalTime(iso:)` (string splitting) was 3% of a scan's CPU.
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(chars[index]) else { return nil }
                value = value * 10 + Int(chars[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard chars.count >= 19, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
              chars[10] == UInt8(ascii: " ") || chars[10] == UInt8(ascii: "T"),
              chars[13] == UInt8(ascii: ":"), chars[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let dayOfMonth = number(8..<10),
              let day = LocalDate(year: year, month: month, day: dayOfMonth),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let time = LocalTime(hour: hour, minute: minute, second: second) else { return nil }
        var index = 19
        var fraction = 0.0
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < chars.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(chars[index]) {
                fraction += Double(chars[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetSeconds = 0
        if index < chars.count {
            let sign: Int
            switch chars[index] {
            case UInt8(ascii: "+"): sign = 1
            case UInt8(ascii: "-"): sign = -1
            case UInt8(ascii: "Z"):
                guard index == chars.count - 1 else { return nil }
                sign = 0
            default: return nil
            }
            if sign != 0 {
                let parts = String(decoding: chars[(index + 1)...], as: UTF8.self).split(separator: ":")
                guard (1...3).contains(parts.count) else { return nil }
                let numbers = parts.compactMap { Int($0) }
                guard numbers.count == parts.count else { return nil }
                offsetSeconds = sign * (numbers[0] * 3600 + (numbers.count > 1 ? numbers[1] * 60 : 0) + (numbers.count > 2 ? numbers[2] : 0))
            }
        }
        let seconds = Double(day.daysSinceEpoch) * 86_400 + Double(time.secondsSinceMidnight) - Double(offsetSeconds)
        return Date(timeIntervalSince1970: seconds + fraction)
    }
}
