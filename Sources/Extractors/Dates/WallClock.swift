import Chrono
import Foundation

/// Converts wall time in one time zone to instants and back, handling DST gaps and overlaps.
///
/// Works from UTC offsets rather than `Calendar.date(from:)`, whose choice for nonexistent and
/// repeated times is unspecified; here the choice is explicit and reported.
struct WallClock: Sendable {
    let timeZone: TimeZone

    struct Resolution: Sendable {
        let instant: Date
        let adjustment: WallTimeAdjustment?
    }

    /// The instant of `time` on `date`: a gap moves forward by its length, an overlap takes the
    /// earlier (daylight) occurrence.
    func instant(date: LocalDate, time: LocalTime) -> Resolution {
        let naive = date.daysSinceEpoch * 86_400 + time.secondsSinceMidnight
        let before = offset(atUTC: naive - 86_400)
        let after = offset(atUTC: naive + 86_400)
        let valid = Set([before, after]).filter { offset(atUTC: naive - $0) == $0 }.sorted(by: >)
        if let first = valid.first {
            // Two valid offsets means the wall time repeats; the larger offset is the earlier instant.
            return Resolution(instant: instant(utc: naive - first), adjustment: valid.count > 1 ? .ambiguousFirstOccurrence : nil)
        }
        // In a gap: read the wall time with the offset in force before the change.
        let gapMinutes = abs(after - before) / 60
        return Resolution(instant: instant(utc: naive - before), adjustment: .skippedForward(minutes: gapMinutes))
    }

    /// The local date and wall time of an instant.
    func wallTime(of instant: Date) -> (date: LocalDate, time: LocalTime) {
        let local = Int(instant.timeIntervalSince1970.rounded(.down)) + offset(at: instant)
        let days = Int((Double(local) / 86_400).rounded(.down))
        let seconds = local - days * 86_400
        let time = LocalTime(hour: seconds / 3600, minute: seconds % 3600 / 60, second: seconds % 60)!
        return (LocalDate(daysSinceEpoch: days), time)
    }

    /// ISO 8601 with the zone's offset at that instant, e.g. `2026-03-08T16:00:00-04:00`.
    func iso(_ instant: Date) -> String {
        let (date, time) = wallTime(of: instant)
        let offsetSeconds = offset(at: instant)
        let sign = offsetSeconds < 0 ? "-" : "+"
        let magnitude = abs(offsetSeconds)
        return date.iso + String(format: "T%02d:%02d:%02d", time.hour, time.minute, time.second)
            + sign + String(format: "%02d:%02d", magnitude / 3600, magnitude % 3600 / 60)
    }

    func offset(at instant: Date) -> Int { timeZone.secondsFromGMT(for: instant) }

    private func offset(atUTC seconds: Int) -> Int { offset(at: instant(utc: seconds)) }

    private func instant(utc seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
