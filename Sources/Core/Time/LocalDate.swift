package import Foundation

/// A calendar date with no time zone (Postgres `date`, a fixture's `2026-03-07`).
///
/// Kept apart from `Date` because "the 7th" is the same day everywhere; turning it into an instant
/// needs a time zone, and doing that implicitly is how off-by-one-day bugs are born.
package struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    package let year: Int
    package let month: Int
    package let day: Int

    /// Returns nil for dates that do not exist (February 30th).
    package init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= LocalDate.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` exactly.
    package init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The calendar date of an instant as seen in a time zone: the zone's offset at that instant, then epoch-day
    /// arithmetic, without building a `Calendar` per call. Instants before 1600, where Foundation's
    /// Gregorian calendar switches to Julian dates, and non-finite ones still go through `Calendar`.
    package init(_ date: Date, in timeZone: TimeZone) {
        let seconds = date.timeIntervalSince1970
        if seconds.isFinite, seconds >= Self.arithmeticFrom, seconds < Self.arithmeticUntil {
            let local = (seconds + Double(timeZone.secondsFromGMT(for: date))) / 86_400
            self.init(daysSinceEpoch: Int(local.rounded(.down)))
            return
        }
        self.init(calendarDate: date, in: timeZone)
    }

    /// 1600-01-01 and 9999-01-01 UTC: the range where `init(_:in:)` uses arithmetic.
    static let arithmeticFrom: Double = -11_676_096_000
    static let arithmeticUntil: Double = 253_370_764_800

    /// The calendar date from Foundation's Gregorian calendar: the reference for `init(_:in:)`.
    init(calendarDate date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        self.year = c.year!
        self.month = c.month!
        self.day = c.day!
    }

    package var iso: String { zeroPadded(year, 4) + "-" + zeroPadded(month, 2) + "-" + zeroPadded(day, 2) }
    package var description: String { iso }

    package static func < (a: LocalDate, b: LocalDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (proleptic Gregorian), for arithmetic without a calendar object.
    package var daysSinceEpoch: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a proleptic Gregorian date given as numbers (year 0 included), unchecked.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package init(daysSinceEpoch z0: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    package func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// Days from `self` to `other` (positive when `other` is later).
    package func days(until other: LocalDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// ISO weekday: 1 = Monday ... 7 = Sunday.
    package var isoWeekday: Int {
        let w = (daysSinceEpoch + 3) % 7  // 1970-01-01 was a Thursday (ISO 4)
        return (w < 0 ? w + 7 : w) + 1
    }

    /// The English weekday name ("Monday"), as prompts show it.
    package var weekdayName: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][isoWeekday - 1]
    }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = LocalDate(iso: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a YYYY-MM-DD date"))
        }
        self = value
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(iso)
    }
}

/// `String(format: "%0*d", width, value)` without Foundation's formatter (which goes through CFString and
/// vfprintf, far slower on a scan's hot path). Negative values keep the formatter's text.
package func zeroPadded(_ value: Int, _ width: Int) -> String {
    guard value >= 0 else { return String(format: "%0\(width)d", value) }
    let digits = String(value)
    return digits.utf8.count >= width ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
}
