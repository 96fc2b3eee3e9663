import Core
import Extractors
import Foundation
import Testing

/// A weekday written with a month-day: the occurrence on that weekday nearest the message, past or future, within a
/// year; else the month-day as read, flagged. Dates checked against the 2026-2028 calendars (2026-11-25 is a
/// Wednesday, 2027-11-25 a Thursday, 2026-03-03 a Tuesday, 2027-03-03 a Wednesday).
@Suite struct TemporalWeekdayAgreementTests {
    static let thursdayEvening = "2026-11-26T19:54:00-05:00"

    static let agreeingCases: [TemporalCase] = [
        // The examples: the written weekday picks yesterday and last March, not next year.
        .day("Wednesday, November 25", thursdayEvening, "2026-11-25"),
        .day("Tuesday 3/3", Sent.mondayNov, "2026-03-03"),
        // Already agreeing with the next occurrence: unchanged.
        .day("Thursday, November 25", thursdayEvening, "2027-11-25"),
        .day("Fri Dec 4", thursdayEvening, "2026-12-04"),
        .day("Saturday June 6", Sent.monday, "2026-06-06"),
        // Nearest in the past beats a far future agreement; in January, last December.
        .day("Wed Dec 30", "2027-01-04T09:00:00-05:00", "2026-12-30"),
        // A day-only ordinal after a weekday is read as "Friday 13th" (the next 13th on a Friday).
        .day("Friday the 13th", Sent.monday, "2026-03-13"),
        .minute("Wednesday, November 25 at 4pm", thursdayEvening, "2026-11-25T16:00:00-05:00"),
    ]

    @Test(arguments: agreeingCases) func agreeing(_ c: TemporalCase) throws {
        try c.check()
        let zone = try #require(TimeZone(identifier: c.zone))
        let found = TemporalResolver(timeZone: zone).resolve(c.text, reference: try ReferenceInstant.parse(c.reference))
        #expect(found.first?.weekdayConflict == nil)
    }

    /// No occurrence within a year falls on the weekday (2025-03-02 is a Sunday, 2026-03-02 a Monday, 2027-03-02 a
    /// Tuesday), or a written year disagrees: the month-day as read, and the conflict flagged with the written weekday.
    @Test func conflictIsFlagged() throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: TZ.newYork)))
        let sent = try ReferenceInstant.parse(Sent.monday)
        let none = try #require(resolver.resolve("Friday March 2", reference: sent).first)
        #expect(none.date.iso == "2026-03-02")
        #expect(none.weekdayConflict == 5)
        let year = try #require(resolver.resolve("Monday, March 3, 2026", reference: sent).first)
        #expect(year.date.iso == "2026-03-03")
        #expect(year.weekdayConflict == 1)
        let quoted = try #require(resolver.resolvePhrase("Tue 3/3/2027", reference: sent))
        #expect(quoted.date.iso == "2027-03-03")
        #expect(quoted.weekdayConflict == 2)
        // A bare month-day never conflicts.
        #expect(resolver.resolve("March 3", reference: sent).first?.weekdayConflict == nil)
    }
}
