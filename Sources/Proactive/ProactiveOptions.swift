import Chrono
import Foundation

/// The windows and thresholds of the proactive pass: how far ahead each kind of finding looks. All in the
/// user's own calendar (days counted from the user's local today).
public struct ProactiveOptions: Sendable, Hashable {
    /// Two events back to back at different places need at least this much time between them to travel; less
    /// (but no overlap) is a "travel" conflict (`ScheduleConflicts`).
    public static let defaultTravelGap = ScheduleConflicts.defaultTravelGap

    public var travelGap: TimeInterval = Self.defaultTravelGap
    /// Conflicts are looked for among events of today and the next `conflictDays` days (as `check_conflicts` does).
    public var conflictDays: Int = 14
    /// An unanswered RSVP is raised when its reply-by date or its event is at most this many days ahead.
    public var rsvpDays: Int = 7
    /// A deadline not done is raised from this many days before it (and on its day).
    public var deadlineDays: Int = 3
    /// A pending reminder is raised when it comes due within this many hours.
    public var reminderHours: Int = 24
    /// Most events read per user in the conflict window (a bound on one user's work).
    public var maxEventsPerUser: Int = 500
    /// Users' zones: `user_settings`, else `--timezone` / MESSAGEAI_TIMEZONE, else UTC.
    public var zones = UserTimeZonePolicy.utc

    public init() {}

    /// The widest day window any rule looks at, so one read serves them all.
    var horizonDays: Int { max(conflictDays, rsvpDays, deadlineDays, reminderHours / 24 + 1) }
}
