import Chrono
import Foundation

/// Turns a wall-clock reading (date + time of day) in a zone into an instant, with the two DST edge cases decided
/// the way RFC 5545 (iCalendar) decides them:
/// - a time that does not exist (skipped by a spring-forward gap, e.g. 02:30 on 2026-03-08 in New York) is read
///   with the offset in force before the gap, so it lands after the jump (02:30 EST = 03:30 EDT);
/// - a time that happens twice (a fall-back overlap) means its first occurrence.
public enum WallClock {
    public static func instant(_ date: LocalDate, _ time: LocalTime, in timeZone: TimeZone) -> Date {
        instant(date, secondsSinceMidnight: time.secondsSinceMidnight, in: timeZone)
    }

    /// The instant the local day `date` begins (its 00:00, or the first instant after a gap at midnight).
    public static func startOfDay(_ date: LocalDate, in timeZone: TimeZone) -> Date {
        instant(date, secondsSinceMidnight: 0, in: timeZone)
    }

    static func instant(_ date: LocalDate, secondsSinceMidnight: Int, in timeZone: TimeZone) -> Date {
        // The reading as if it were UTC; the real instant is this minus the zone's offset at that instant.
        let wall = Double(date.daysSinceEpoch * 86_400 + secondsSinceMidnight)
        // Offsets a day either side: any transition near this reading lies between them.
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        let valid = Set([before, after]).compactMap { offset -> Date? in
            let candidate = Date(timeIntervalSince1970: wall - Double(offset))
            return timeZone.secondsFromGMT(for: candidate) == offset ? candidate : nil
        }
        if let first = valid.min() { return first }
        // Neither offset reproduces the reading: it falls in a gap. Use the offset before the gap.
        return Date(timeIntervalSince1970: wall - Double(before))
    }
}
