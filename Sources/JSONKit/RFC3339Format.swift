/// RFC 3339 section 5.6 `full-date`, `full-time` and `date-time`, checked strictly over ASCII bytes
/// (no ISO 8601 variants, no missing offsets), with leap seconds only where UTC reads 23:59:60.
enum RFC3339 {
    static func isValid(_ text: String, as format: StringFormat) -> Bool {
        let bytes = Array(text.utf8)[...]
        switch format {
        case .date: return isFullDate(bytes)
        case .time: return isFullTime(bytes)
        case .dateTime:
            guard bytes.count > 11, bytes[bytes.startIndex + 10] == UInt8(ascii: "T") || bytes[bytes.startIndex + 10] == UInt8(ascii: "t")
            else { return false }
            return isFullDate(bytes.prefix(10)) && isFullTime(bytes.dropFirst(11))
        }
    }

    /// `YYYY-MM-DD` with the real number of days in that month (Gregorian leap years).
    static func isFullDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count == 10, bytes[bytes.startIndex + 4] == UInt8(ascii: "-"), bytes[bytes.startIndex + 7] == UInt8(ascii: "-"),
              let year = number(bytes, at: 0, digits: 4), let month = number(bytes, at: 5, digits: 2),
              let day = number(bytes, at: 8, digits: 2), (1...12).contains(month)
        else { return false }
        return day >= 1 && day <= daysIn(month: month, year: year)
    }

    /// `HH:MM:SS[.frac](Z|±HH:MM)`; the offset is required.
    static func isFullTime(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 9, bytes[bytes.startIndex + 2] == UInt8(ascii: ":"), bytes[bytes.startIndex + 5] == UInt8(ascii: ":"),
              let hour = number(bytes, at: 0, digits: 2), let minute = number(bytes, at: 3, digits: 2),
              let second = number(bytes, at: 6, digits: 2), hour <= 23, minute <= 59, second <= 60
        else { return false }
        var rest = bytes.dropFirst(8)
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let digits = rest.prefix { isDigit($0) }
            guard !digits.isEmpty else { return false }
            rest = rest.dropFirst(digits.count)
        }
        var offsetMinutes = 0
        switch rest.first {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard rest.count == 1 else { return false }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard rest.count == 6, rest[rest.startIndex + 3] == UInt8(ascii: ":"),
                  let offsetHour = number(rest, at: 1, digits: 2), let offsetMinute = number(rest, at: 4, digits: 2),
                  offsetHour <= 23, offsetMinute <= 59
            else { return false }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (rest.first == UInt8(ascii: "+") ? 1 : -1)
        default:
            return false
        }
        if second == 60 {
            // A leap second is inserted at 23:59:60 UTC; local time is UTC plus the offset.
            let utcMinutes = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
            return utcMinutes == 23 * 60 + 59
        }
        return true
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The decimal number made of exactly `digits` ASCII digits at `offset`, or nil.
    private static func number(_ bytes: ArraySlice<UInt8>, at offset: Int, digits: Int) -> Int? {
        let start = bytes.startIndex + offset
        guard start + digits <= bytes.endIndex else { return nil }
        var value = 0
        for byte in bytes[start..<start + digits] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
