import Core
import Foundation

/// How templates write days and times, in the user's zone: "Saturday Nov 28", "10:00-12:00", "tomorrow".
enum Wording {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Saturday Nov 28".
    static func day(_ date: LocalDate) -> String {
        "\(weekdays[date.isoWeekday - 1]) \(months[date.month - 1]) \(date.day)"
    }

    /// "today (Saturday Nov 28)", "tomorrow (...)", or just the day.
    static func relativeDay(_ date: LocalDate, today: LocalDate) -> String {
        switch today.days(until: date) {
        case 0: "today (\(day(date)))"
        case 1: "tomorrow (\(day(date)))"
        default: day(date)
        }
    }

    /// "10:00" on the user's wall clock.
    static func clock(_ instant: Date, in zone: TimeZone) -> String {
        let time = WallClock(timeZone: zone).wallTime(of: instant).time
        return time.hourMinute
    }

    /// Untrusted text (titles, places) cut to a line's length, on one line.
    static func text(_ value: String, max: Int = 80) -> String {
        let line = value.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return line.count <= max ? line : String(line.prefix(max - 1)) + "…"
    }
}
