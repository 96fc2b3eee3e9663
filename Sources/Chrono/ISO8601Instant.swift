import Foundation

/// ISO 8601 / RFC 3339 text for instants, written and read without `ISO8601DateFormatter`: that class is not
/// `Sendable`, and building one per call cost 150-177 µs on Linux (a prompt renders one per message). This writer
/// takes about a microsecond and is safe from any thread. Other ISO codecs in the package can move onto it.
public enum ISO8601Instant {
    /// `2026-03-08T09:30:00-04:00` with the zone's offset at that instant, seconds floored; a zero offset is
    /// written `Z`, exactly as `ISO8601DateFormatter` with `.withInternetDateTime` writes it.
    public static func string(_ date: Date, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = Int((Double(local) / 86_400).rounded(.down))
        let second = local - days * 86_400
        let day = LocalDate(daysSinceEpoch: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(25)
        if day.year < 0 { bytes.append(UInt8(ascii: "-")) }
        append(abs(day.year), width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day.month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day.day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(second / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(second % 3600 / 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(second % 60, width: 2, to: &bytes)
        if offset == 0 {
            bytes.append(UInt8(ascii: "Z"))
        } else {
            let minutes = abs(offset) / 60
            bytes.append(UInt8(ascii: offset < 0 ? "-" : "+"))
            append(minutes / 60, width: 2, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            append(minutes % 60, width: 2, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `2026-03-08T13:30:00Z`: what `ISO8601DateFormatter()` writes with its default options (UTC, seconds floored).
    public static func string(_ date: Date) -> String { string(date, in: utc) }

    private static let utc = TimeZone(identifier: "UTC")!

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction]` followed by `Z` or `±HH:MM` (`t`, `z` and `±HHMM` accepted too).
    /// Nil for anything else, a missing offset included: without one the instant is unknown.
    public static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        guard chars.count >= 20, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
              chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: "t"),
              chars[13] == UInt8(ascii: ":"), chars[16] == UInt8(ascii: ":"),
              let year = number(chars, 0, 4), let month = number(chars, 5, 2), let dayOfMonth = number(chars, 8, 2),
              let hour = number(chars, 11, 2), let minute = number(chars, 14, 2), let second = number(chars, 17, 2),
              hour <= 23, minute <= 59, second <= 59,
              let day = LocalDate(year: year, month: month, day: dayOfMonth) else { return nil }
        var index = 19
        var fraction = 0.0
        if chars[index] == UInt8(ascii: ".") || chars[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let start = index
            while index < chars.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(chars[index]) {
                fraction += Double(chars[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < chars.count else { return nil }
        var offset = 0
        switch chars[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = chars[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHour = number(chars, index, 2), offsetHour <= 23 else { return nil }
            index += 2
            if index < chars.count, chars[index] == UInt8(ascii: ":") { index += 1 }
            guard let offsetMinute = number(chars, index, 2), offsetMinute <= 59 else { return nil }
            index += 2
            offset = sign * (offsetHour * 3600 + offsetMinute * 60)
        default:
            return nil
        }
        guard index == chars.count else { return nil }
        let seconds = day.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if digits.count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
        bytes.append(contentsOf: digits.reversed())
    }

    private static func number(_ chars: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= chars.count else { return nil }
        var value = 0
        for char in chars[start..<start + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) else { return nil }
            value = value * 10 + Int(char - UInt8(ascii: "0"))
        }
        return value
    }
}
