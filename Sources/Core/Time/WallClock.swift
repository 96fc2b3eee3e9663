package import Foundation

/// Converts wall time in one time zone to instants and back, with the two DST edge cases decided explicitly
/// (as RFC 5545, iCalendar, decides them) instead of left to `Calendar.date(from:)`, whose choice is unspecified:
/// - a time that does not exist (skipped by a spring-forward gap, e.g. 02:30 on 2026-03-08 in New York) is read
///   with the offset in force before the gap, so it moves forward by the gap (02:30 EST = 03:30 EDT);
/// - a time that happens twice (a fall-back overlap) means its first, daylight occurrence.
package struct WallClock: Sendable {
    package let timeZone: TimeZone

    package init(timeZone: TimeZone) { self.timeZone = timeZone }

    package struct Resolution: Sendable {
        package let instant: Date
        /// Set when the wall time was in a gap or an overlap.
        package let adjustment: WallTimeAdjustment?
    }

    /// The instant of `time` on `date`, and whether a DST rule had to decide it.
    package func instant(date: LocalDate, time: LocalTime) -> Resolution {
        instant(date: date, secondsSinceMidnight: time.secondsSinceMidnight)
    }

    func instant(date: LocalDate, secondsSinceMidnight: Int) -> Resolution {
        // The reading as if it were UTC; the real instant is this minus the zone's offset at that instant.
        let naive = date.daysSinceEpoch * 86_400 + secondsSinceMidnight
        // Offsets a day either side: any transition near this reading lies between them.
        let before = offset(atUTC: naive - 86_400)
        let after = offset(atUTC: naive + 86_400)
        let valid = Set([before, after]).filter { offset(atUTC: naive - $0) == $0 }.sorted(by: >)
        if let first = valid.first {
            // Two valid offsets means the wall time repeats; the larger offset is the earlier instant.
            return Resolution(instant: instant(utc: naive - first), adjustment: valid.count > 1 ? .ambiguousFirstOccurrence : nil)
        }
        return Resolution(instant: instant(utc: naive - before), adjustment: .skippedForward(minutes: abs(after - before) / 60))
    }

    /// The local date and wall time of an instant.
    package func wallTime(of instant: Date) -> (date: LocalDate, time: LocalTime) {
        let local = Int(instant.timeIntervalSince1970.rounded(.down)) + offset(at: instant)
        let days = Int((Double(local) / 86_400).rounded(.down))
        let seconds = local - days * 86_400
        let time = LocalTime(hour: seconds / 3600, minute: seconds % 3600 / 60, second: seconds % 60)!
        return (LocalDate(daysSinceEpoch: days), time)
    }

    /// ISO 8601 with the zone's offset at that instant, e.g. `2026-03-08T16:00:00-04:00`.
    package func iso(_ instant: Date) -> String { ISO8601Instant.string(instant, in: timeZone, style: .numericOffset) }

    package func offset(at instant: Date) -> Int { timeZone.secondsFromGMT(for: instant) }

    private func offset(atUTC seconds: Int) -> Int { offset(at: instant(utc: seconds)) }

    private func instant(utc seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

extension WallClock {
    /// The instant of a wall time in a zone (DST rules as above).
    package static func instant(_ date: LocalDate, _ time: LocalTime, in timeZone: TimeZone) -> Date {
        WallClock(timeZone: timeZone).instant(date: date, time: time).instant
    }

    /// The instant the local day `date` begins (its 00:00, or the first instant after a gap at midnight).
    package static func startOfDay(_ date: LocalDate, in timeZone: TimeZone) -> Date {
        WallClock(timeZone: timeZone).instant(date: date, secondsSinceMidnight: 0).instant
    }
}


/// How a wall time that a DST change makes nonexistent or repeated was turned into an instant.
package enum WallTimeAdjustment: Sendable, Hashable, Codable {
    /// The wall time fell in a spring-forward gap; it was moved forward by the gap's length.
    case skippedForward(minutes: Int)
    /// The wall time happens twice (fall back); the first (daylight) occurrence was taken.
    case ambiguousFirstOccurrence
}