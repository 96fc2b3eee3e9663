package import Foundation

/// The stretch of real time an event occupies, half-open `[start, end)`, so an event ending at 10:00 and one
/// starting at 10:00 do not overlap.
package struct EventInterval: Sendable, Hashable {
    package let start: Date
    package let end: Date

    /// Events with a start and no end are assumed to last this long.
    static let defaultDuration: TimeInterval = 60 * 60

    package init(start: Date, end: Date) {
        self.start = start
        self.end = max(start, end)
    }

    /// The interval of a calendar entry read on the wall clock of `timeZone`:
    /// - no start time: the whole local day, `[00:00, next day 00:00)` (23 or 25 hours on DST days);
    /// - a start and no end (or an end equal to the start): `defaultDuration` of real time;
    /// - an end earlier than the start: the event runs past midnight and ends the next day;
    /// - otherwise start to end, both read on that day's wall clock (so 01:30–03:30 across a spring-forward
    ///   gap lasts one real hour).
    package init(date: LocalDate, time: LocalTime?, endTime: LocalTime?, in timeZone: TimeZone) {
        guard let time else {
            self.init(start: WallClock.startOfDay(date, in: timeZone), end: WallClock.startOfDay(date.adding(days: 1), in: timeZone))
            return
        }
        let start = WallClock.instant(date, time, in: timeZone)
        guard let endTime, endTime != time else {
            self.init(start: start, end: start.addingTimeInterval(Self.defaultDuration))
            return
        }
        let endDate = endTime < time ? date.adding(days: 1) : date
        self.init(start: start, end: WallClock.instant(endDate, endTime, in: timeZone))
    }

    /// True when the two share some instant; touching intervals do not overlap.
    package func overlaps(_ other: EventInterval) -> Bool {
        start < other.end && other.start < end
    }

    /// The shared part, or nil when they do not overlap.
    package func intersection(_ other: EventInterval) -> EventInterval? {
        guard overlaps(other) else { return nil }
        return EventInterval(start: max(start, other.start), end: min(end, other.end))
    }

    package var duration: TimeInterval { end.timeIntervalSince(start) }
}
