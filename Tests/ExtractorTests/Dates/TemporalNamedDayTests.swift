import Extractors
import Foundation
import Testing

/// Weekday + ordinal, parts of day after a time, noon / midnight (deadline midnight ends the named day) and named
/// days. 2026-03-02 and 2026-11-23 are Mondays; 2026-11-01 a Sunday; Easter 2027 is March 28.
@Suite struct TemporalNamedDayTests {
    static let londonNov = "2026-11-23T10:00:00+00:00"
    static let sydneyNov = "2026-11-23T10:00:00+11:00"

    static let weekdayOrdinalCases: [TemporalCase] = [
        .day("Monday 7th", "2026-11-30T16:00:00+00:00", "2026-12-07", zone: TZ.london),
        .day("by Monday 7th", "2026-11-30T16:00:00+00:00", "2026-12-07", zone: TZ.london, deadline: true),
        .day("Costumes need to be in school by Monday 7th.", "2026-11-30T16:00:00+00:00", "2026-12-07", zone: TZ.london, deadline: true),
        .day("Mon the 7th", Sent.mondayNov, "2026-12-07"),
        .day("Thursday 12th", Sent.monday, "2026-03-12"),
        // The next 12th that is a Friday, not the next 12th.
        .day("Friday, 12th", Sent.monday, "2026-06-12"),
        .day("Fri 13th", Sent.monday, "2026-03-13"),
        .minute("Sat 14th at 10am", Sent.monday, "2026-03-14T10:00:00-04:00"),
    ]

    static let partsOfDayCases: [TemporalCase] = [
        .minute("Saturday at 6 in the morning", Sent.monday, "2026-03-07T06:00:00-05:00"),
        .minute("at 8 in the evening", Sent.monday, "2026-03-02T20:00:00-05:00"),
        .minute("at 3 in the afternoon", Sent.monday, "2026-03-02T15:00:00-05:00"),
        .minute("6 in the morning", Sent.monday, "2026-03-02T06:00:00-05:00"),
        .minute("at 10 at night", Sent.monday, "2026-03-02T22:00:00-05:00"),
        .minute("tomorrow at 6am-ish", Sent.monday, "2026-03-03T06:00:00-05:00"),
        .minute("at 6ish", Sent.monday, "2026-03-02T18:00:00-05:00"),
        .minute("Friday at noon", Sent.monday, "2026-03-06T12:00:00-05:00"),
        .minute("Friday at midnight", Sent.monday, "2026-03-07T00:00:00-05:00"),
        .minute("due Friday at midnight", Sent.monday, "2026-03-06T23:59:00-05:00", deadline: true),
        .minute("by midnight", Sent.monday, "2026-03-02T23:59:00-05:00", deadline: true),
        .minute("Summer BBQ on Saturday 13th June from 4!", "2026-06-04T17:20:00+01:00", "2026-06-13T16:00:00+01:00", zone: TZ.london),
    ]

    static let namedDaysCases: [TemporalCase] = [
        .day("Thanksgiving", Sent.mondayNov, "2026-11-26"),
        .day("Christmas Eve", Sent.mondayNov, "2026-12-24"),
        .day("Christmas Day", Sent.mondayNov, "2026-12-25"),
        .day("home for Christmas!", Sent.mondayNov, "2026-12-25"),
        .day("by Christmas", Sent.mondayNov, "2026-12-25", deadline: true),
        .day("New Year's Eve", Sent.mondayNov, "2026-12-31"),
        .day("New Year's Day", Sent.mondayNov, "2027-01-01"),
        .day("New Years Day", Sent.mondayNov, "2027-01-01"),
        .day("new year’s day", Sent.mondayNov, "2027-01-01"),
        .day("Valentine's Day", Sent.mondayNov, "2027-02-14"),
        .day("Halloween", Sent.mondayNov, "2027-10-31"),
        .day("Halloween", Sent.fallEve, "2026-10-31"),
        .day("July 4th", Sent.mondayNov, "2027-07-04"),
        .day("Independence Day", Sent.mondayNov, "2027-07-04"),
        .day("the Fourth of July", Sent.mondayNov, "2027-07-04"),
        .day("Easter", Sent.mondayNov, "2027-03-28"),
        .minute("Christmas Eve at 6pm", Sent.mondayNov, "2026-12-24T18:00:00-05:00"),
        // United States only.
        .day("Mother's Day", Sent.mondayNov, "2027-05-09"),
        .day("Father's Day", Sent.mondayNov, "2027-06-20"),
        .day("Memorial Day", Sent.mondayNov, "2027-05-31"),
        .day("Labor Day", Sent.mondayNov, "2027-09-06"),
        // United Kingdom only.
        .day("Boxing Day", londonNov, "2026-12-26", zone: TZ.london),
        .day("Good Friday", londonNov, "2027-03-26", zone: TZ.london),
        .day("Easter Monday", londonNov, "2027-03-29", zone: TZ.london),
        .day("the August bank holiday", londonNov, "2027-08-30", zone: TZ.london),
        .day("early May bank holiday", londonNov, "2027-05-03", zone: TZ.london),
        .day("spring bank holiday", londonNov, "2027-05-31", zone: TZ.london),
        .day("Mother's Day", londonNov, "2027-03-07", zone: TZ.london),
        .day("Christmas Day", londonNov, "2026-12-25", zone: TZ.london),
        .day("the Christmas concert is on Dec 18", Sent.mondayNov, "2026-12-18"),
    ]

    @Test(arguments: weekdayOrdinalCases) func weekdayOrdinals(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: partsOfDayCases) func partsOfDay(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: namedDaysCases) func namedDays(_ c: TemporalCase) throws { try c.check() }

    /// A country's own days are not read in another country's zone.
    @Test(arguments: [
        ("Memorial Day", TZ.london, londonNov), ("Labor Day", TZ.sydney, sydneyNov), ("Boxing Day", TZ.newYork, Sent.mondayNov),
        ("Halloween costumes for sale", TZ.newYork, Sent.mondayNov),
    ])
    func namedDayOutsideItsCountry(_ text: String, _ zone: String, _ reference: String) throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: zone)))
        #expect(resolver.resolve(text, reference: try ReferenceInstant.parse(reference)).isEmpty)
    }

    /// `read` says when a quoted phrase was only partly read, so the model's date can be kept.
    @Test func phraseReadingReportsUnreadDateWords() throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: TZ.london)))
        let sent = try ReferenceInstant.parse("2026-11-30T16:00:00+00:00")
        let whole = resolver.read("by Monday 7th", reference: sent)
        #expect(whole.isComplete && whole.expression?.date.iso == "2026-12-07")
        #expect(resolver.read("on tomorrow", reference: sent).isComplete)
        // A quoted bare ordinal is a day of the month; in running text it needs "the".
        let ordinal = resolver.read("12th", reference: sent)
        #expect(ordinal.isComplete && ordinal.expression?.date.iso == "2026-12-12")
        #expect(resolver.resolve("my 12th", reference: sent).isEmpty)
        let memorial = resolver.read("Memorial Day", reference: sent)
        #expect(!memorial.isComplete && memorial.unread.contains("Memorial"))
        let two = resolver.read("Friday or Saturday", reference: sent)
        #expect(two.expression?.date.iso == "2026-12-04" && two.unread == ["Saturday"])
        let deadline = resolver.read("this Friday at midnight", reference: sent, deadline: true)
        #expect(deadline.isComplete && deadline.expression?.date.iso == "2026-12-04" && deadline.expression?.time?.iso == "23:59")
        #expect(resolver.read("this Friday at midnight", reference: sent).expression?.date.iso == "2026-12-05")
    }
}
