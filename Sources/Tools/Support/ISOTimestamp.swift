import Chrono
import Foundation

/// ISO 8601 instants as the tools speak them: written with the user's UTC offset (what the user's clock read),
/// read only with an explicit offset, because a bare "09:00" means different instants in different zones.
enum ISOTimestamp {
    /// `2026-03-08T09:30:00-04:00`, seconds floored.
    static func format(_ date: Date, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let local = Int((date.timeIntervalSince1970).rounded(.down)) + offset
        let days = Int((Double(local) / 86_400).rounded(.down))
        let second = local - days * 86_400
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return String(
            format: "%@T%02d:%02d:%02d%@%02d:%02d", LocalDate(daysSinceEpoch: days).iso, second / 3600, second % 3600 / 60, second % 60,
            sign, magnitude / 60, magnitude % 60)
    }

    /// `2026-03-08T14:05Z`: the instant in UTC, to the minute (used in idempotency keys).
    static func utcMinute(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let second = seconds - days * 86_400
        return String(format: "%@T%02d:%02dZ", LocalDate(daysSinceEpoch: days).iso, second / 3600, second % 3600 / 60)
    }

    /// The instant truncated to its minute.
    static func truncatedToMinute(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    enum ParseFailure: Error, Equatable {
        case malformed
        case missingOffset
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH:MM` (or `±HHMM`).
    static func parse(_ text: String) -> Result<Date, ParseFailure> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let chars = Array(trimmed)
        guard chars.count >= 16, chars[10] == "T" || chars[10] == "t" || chars[10] == " ",
              let date = LocalDate(iso: String(chars[0..<10])) else { return .failure(.malformed) }
        var index = 11
        func digits(_ count: Int) -> Int? {
            guard index + count <= chars.count else { return nil }
            let slice = chars[index..<index + count]
            guard slice.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            index += count
            return Int(String(slice))
        }
        func take(_ character: Character) -> Bool {
            guard index < chars.count, chars[index] == character else { return false }
            index += 1
            return true
        }
        guard let hour = digits(2), take(":"), let minute = digits(2), hour <= 23, minute <= 59 else { return .failure(.malformed) }
        var second = 0
        var fraction = 0.0
        if take(":") {
            guard let s = digits(2), s <= 59 else { return .failure(.malformed) }
            second = s
            if take(".") || take(",") {
                var scale = 0.1
                let start = index
                while index < chars.count, chars[index].isASCII, let digit = chars[index].wholeNumberValue {
                    fraction += Double(digit) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return .failure(.malformed) }
            }
        }
        guard index < chars.count else { return .failure(.missingOffset) }
        var offset = 0
        if take("Z") || take("z") {
            // UTC
        } else if index < chars.count, chars[index] == "+" || chars[index] == "-" {
            let sign = chars[index] == "-" ? -1 : 1
            index += 1
            guard let offsetHour = digits(2), offsetHour <= 23 else { return .failure(.malformed) }
            _ = take(":")
            guard let offsetMinute = digits(2), offsetMinute <= 59 else { return .failure(.malformed) }
            offset = sign * (offsetHour * 3600 + offsetMinute * 60)
        } else {
            return .failure(.malformed)
        }
        guard index == chars.count else { return .failure(.malformed) }
        let seconds = date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second - offset
        return .success(Date(timeIntervalSince1970: Double(seconds) + fraction))
    }
}
