package import Core
package import Foundation

/// One date or time expression found in a message, already resolved to a calendar value.
///
/// Both the civil value (`date`, `time`) and the instant (`start`) are kept: the app stores the
/// civil value for all-day items and the instant for timed ones, and the two must never disagree.
package struct TemporalExpression: Sendable, Hashable, Codable {
    package enum Grain: String, Sendable, Codable { case day, minute }

    /// The matched text exactly as it appears in the input.
    package let text: String
    /// UTF-16 offsets into the input (the unit of `NSRange` and JavaScript strings).
    package let range: Range<Int>
    /// The day in the resolver's time zone (after any DST adjustment of `time`).
    package let date: LocalDate
    /// The wall time for minute grain, after any DST adjustment; nil for day grain.
    package let time: LocalTime?
    /// The end of a time range ("2-4pm"), as written; nil otherwise.
    package let endTime: LocalTime?
    package let grain: Grain
    /// True for "by Friday", "before Monday", "no later than the 10th", "due Friday".
    package let isDeadline: Bool
    /// Set when the written wall time does not exist or happens twice at a DST change.
    package let wallTimeAdjustment: WallTimeAdjustment?
    /// The instant for minute grain (zone applied); nil for day grain.
    package let start: Date?
    /// "YYYY-MM-DD" for day grain; ISO 8601 with the zone's offset for minute grain.
    package let startISO: String
    /// The instant `endTime` denotes (the next day when it is not after `time`); nil without a range.
    package let end: Date?
    /// `end` in the same ISO 8601 form as `startISO`; nil without a range.
    package let endISO: String?
    /// The written weekday (ISO 1 Monday to 7 Sunday) when no occurrence of the written month-day within a year of
    /// the message falls on it: `date` is then the month-day's next occurrence and the reading is in doubt.
    package let weekdayConflict: Int?

    package init(
        text: String, range: Range<Int>, date: LocalDate, time: LocalTime?, endTime: LocalTime?,
        grain: Grain, isDeadline: Bool, wallTimeAdjustment: WallTimeAdjustment?,
        start: Date?, startISO: String, end: Date?, endISO: String?, weekdayConflict: Int? = nil
    ) {
        self.text = text
        self.range = range
        self.date = date
        self.time = time
        self.endTime = endTime
        self.grain = grain
        self.isDeadline = isDeadline
        self.wallTimeAdjustment = wallTimeAdjustment
        self.start = start
        self.startISO = startISO
        self.end = end
        self.endISO = endISO
        self.weekdayConflict = weekdayConflict
    }
}

/// What the resolver made of a quoted phrase: its value, and the date-like words it did not read.
package struct PhraseReading: Sendable, Hashable {
    package let expression: TemporalExpression?
    /// Numbers, ordinals, weekday or month names, parts of day and named-day words outside the expression.
    package let unread: [String]

    /// True when the phrase was read and nothing date-like is left over: code's date can be trusted.
    package var isComplete: Bool { expression != nil && unread.isEmpty }
}
