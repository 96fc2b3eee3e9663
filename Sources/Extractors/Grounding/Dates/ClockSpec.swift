import Core

/// Part of the day named beside a date; it decides how an hour without am/pm is read
/// ("Friday night at 8" is 20:00, "tomorrow morning at 8" is 08:00).
enum DayPeriod: Sendable, Hashable { case morning, afternoon, evening }

enum Meridiem: Sendable, Hashable {
    case am, pm
    var opposite: Meridiem { self == .am ? .pm : .am }
}

/// A clock time as written, before the am/pm conventions are applied.
///
/// Kept raw because the conventions depend on context found later: a range's other end
/// ("2-4pm") or a part of day that may come after the time ("at 8 tonight").
struct ClockSpec: Sendable, Hashable {
    enum Special: Sendable, Hashable { case noon, midnight }

    var hour: Int
    var minute: Int = 0
    var meridiem: Meridiem?
    /// Written so that it can only be a 24-hour reading: "09:00", "16:30", "0:15".
    var explicit24h = false
    var special: Special?

    static let noon = ClockSpec(hour: 12, special: .noon)
    static let midnight = ClockSpec(hour: 0, special: .midnight)

    /// True when the written form says which half of the day it is.
    var isMarked: Bool { meridiem != nil || special != nil || explicit24h }

    /// Whether a range's other end may lend this time its am/pm.
    var canBorrowMeridiem: Bool { !isMarked && (1...12).contains(hour) }

    /// The wall time under the documented conventions: with am/pm as written; without, hours 1-7
    /// are afternoon and others morning, 12 is noon, and a part of day overrides the default.
    func resolved(period: DayPeriod?) -> LocalTime? {
        switch special {
        case .noon: return LocalTime(hour: 12, minute: 0)
        case .midnight: return LocalTime(hour: 0, minute: 0)
        case nil: break
        }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            let base = hour == 12 ? 0 : hour
            return LocalTime(hour: meridiem == .am ? base : base + 12, minute: minute)
        }
        if explicit24h || hour == 0 || hour > 12 || hour == 12 { return LocalTime(hour: hour, minute: minute) }
        switch period {
        case .morning: return LocalTime(hour: hour, minute: minute)
        case .afternoon, .evening: return LocalTime(hour: hour + 12, minute: minute)
        case nil: return LocalTime(hour: (1...7).contains(hour) ? hour + 12 : hour, minute: minute)
        }
    }

    /// Both ends of a range, with am/pm shared across it ("2-4pm" is 14:00-16:00, "11-1pm" is
    /// 11:00-13:00). Nil when neither end says am/pm and the end is not after the start: that is
    /// a score ("3-2"), not a time range.
    static func resolveRange(start: ClockSpec, end: ClockSpec, period: DayPeriod?) -> (LocalTime, LocalTime)? {
        var start = start
        var end = end
        if start.canBorrowMeridiem, let borrowed = end.meridiem {
            start.meridiem = borrowed
            if let s = start.resolved(period: nil), let e = end.resolved(period: nil), s > e {
                start.meridiem = borrowed.opposite
            }
        } else if end.canBorrowMeridiem, let borrowed = start.meridiem {
            end.meridiem = borrowed
            if let s = start.resolved(period: nil), let e = end.resolved(period: nil), e <= s {
                end.meridiem = borrowed.opposite
            }
        }
        guard let s = start.resolved(period: period), var e = end.resolved(period: period) else { return nil }
        if e <= s, !end.isMarked, e.hour < 12, let later = LocalTime(hour: e.hour + 12, minute: e.minute) {
            e = later  // "from 7 to 9": the 9 is evening too
        }
        if e <= s, !start.isMarked, !end.isMarked { return nil }
        return (s, e)
    }
}
