package import Core
package import Foundation

/// The windows and thresholds of the proactive pass: how far ahead each kind of finding looks. All in the
/// user's own calendar (days counted from the user's local today).
package struct ProactiveOptions: Sendable, Hashable {
    /// Two events back to back at different places need at least this much time between them to travel; less
    /// (but no overlap) is a "travel" conflict (`ScheduleConflicts`).
    package static let defaultTravelGap = ScheduleConflicts.defaultTravelGap

    package var travelGap: TimeInterval = Self.defaultTravelGap
    /// Conflicts are looked for among events of today and the next `conflictDays` days (as `check_conflicts` does).
    var conflictDays: Int = 14
    /// An unanswered RSVP is raised when its reply-by date or its event is at most this many days ahead.
    package var rsvpDays: Int = 7
    /// A deadline not done is raised from this many days before it (and on its day): the coming week by default
    /// (`MESSAGEAI_DEADLINE_DAYS`, `--deadline-days`).
    package var deadlineDays: Int = Self.defaultDeadlineDays
    package static let defaultDeadlineDays = 7
    package static let deadlineDaysRange = 0...60
    /// An urgent or high priority message is raised while the day it concerns is today or within this many days.
    var priorityDays: Int = 1
    /// How far back priority messages are read: one about tomorrow may have been sent days before.
    package var priorityLookbackDays: Int = 14
    /// A pending reminder is raised when it comes due within this many hours.
    package var reminderHours: Int = 24
    /// Most events read per user in the conflict window (a bound on one user's work).
    var maxEventsPerUser: Int = 500
    /// Users' zones: `user_settings`, else `--timezone` / MESSAGEAI_TIMEZONE, else UTC.
    package var zones = UserTimeZonePolicy.utc

    package init() {}

    /// The widest day window any rule looks at, so one read serves them all.
    var horizonDays: Int { max(conflictDays, rsvpDays, deadlineDays, reminderHours / 24 + 1) }
}
