import Extractors
import Testing

/// Minute-grain forms. Reference: Monday 2026-03-02 10:00 EST (-05:00) unless stated; US DST
/// starts 2026-03-08, so dates from then on carry -04:00.
@Suite struct TemporalTimeTests {
    static let bareTimesCases: [TemporalCase] = [
        .minute("4pm", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("4 PM", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("4p", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("4:30", Sent.monday, "2026-03-02T16:30:00-05:00"),
        .minute("9:15am", Sent.monday, "2026-03-02T09:15:00-05:00"),
        .minute("9:15 a.m.", Sent.monday, "2026-03-02T09:15:00-05:00"),
        .minute("7:45 p.m.", Sent.monday, "2026-03-02T19:45:00-05:00"),
        .minute("16:30", Sent.monday, "2026-03-02T16:30:00-05:00"),
        .minute("07:30", Sent.monday, "2026-03-02T07:30:00-05:00"),
        .minute("noon", Sent.monday, "2026-03-02T12:00:00-05:00"),
        .minute("12 noon", Sent.monday, "2026-03-02T12:00:00-05:00"),
        .minute("midnight", Sent.monday, "2026-03-03T00:00:00-05:00"),
        .minute("at 4", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("at 7", Sent.monday, "2026-03-02T19:00:00-05:00"),
        .minute("at 8", Sent.monday, "2026-03-02T08:00:00-05:00"),
        .minute("at 1", Sent.monday, "2026-03-02T13:00:00-05:00"),
        .minute("at 12", Sent.monday, "2026-03-02T12:00:00-05:00"),
        .minute("at 11:30", Sent.monday, "2026-03-02T11:30:00-05:00"),
        .minute("at four", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("practice at 5", Sent.monday, "2026-03-02T17:00:00-05:00"),
        .minute("5 o'clock", Sent.monday, "2026-03-02T17:00:00-05:00"),
        .minute("12am", Sent.monday, "2026-03-02T00:00:00-05:00"),
        .minute("12pm", Sent.monday, "2026-03-02T12:00:00-05:00"),
        .minute("@ 6", Sent.monday, "2026-03-02T18:00:00-05:00"),
        .minute("Can you pick up the kids at 3?", Sent.monday, "2026-03-02T15:00:00-05:00"),
        .minute("by 5pm", Sent.monday, "2026-03-02T17:00:00-05:00", deadline: true),
        .minute("back by noon", Sent.monday, "2026-03-02T12:00:00-05:00", deadline: true),
        .minute("we sat at 4", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("Meet at the park at 4 o’clock", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("lunch at 12:30?", Sent.monday, "2026-03-02T12:30:00-05:00"),
    ]

    static let dateAndTimeCases: [TemporalCase] = [
        .minute("tomorrow at 4pm", Sent.monday, "2026-03-03T16:00:00-05:00"),
        .minute("Friday at 4", Sent.monday, "2026-03-06T16:00:00-05:00"),
        .minute("next Friday at 4pm", Sent.monday, "2026-03-13T16:00:00-04:00"),
        .minute("4pm tomorrow", Sent.monday, "2026-03-03T16:00:00-05:00"),
        .minute("at 5 on Friday", Sent.monday, "2026-03-06T17:00:00-05:00"),
        .minute("tonight at 8", Sent.monday, "2026-03-02T20:00:00-05:00"),
        .minute("at 8 tonight", Sent.monday, "2026-03-02T20:00:00-05:00"),
        .minute("Friday night at 8", Sent.monday, "2026-03-06T20:00:00-05:00"),
        .minute("tomorrow morning at 7", Sent.monday, "2026-03-03T07:00:00-05:00"),
        .minute("March 14 at 10am", Sent.monday, "2026-03-14T10:00:00-04:00"),
        .minute("Friday, 3:30pm", Sent.monday, "2026-03-06T15:30:00-05:00"),
        .minute("Fri @ 6", Sent.monday, "2026-03-06T18:00:00-05:00"),
        .minute("noon tomorrow", Sent.monday, "2026-03-03T12:00:00-05:00"),
        .minute("Friday at midnight", Sent.monday, "2026-03-07T00:00:00-05:00"),
        .minute("the 14th at 9:30am", Sent.monday, "2026-03-14T09:30:00-04:00"),
        .minute("3/20 at 6:15pm", Sent.monday, "2026-03-20T18:15:00-04:00"),
        .minute("Sat 10am", Sent.monday, "2026-03-07T10:00:00-05:00"),
        .minute("2026-04-17 16:00", Sent.monday, "2026-04-17T16:00:00-04:00"),
        .minute("by Friday at 5pm", Sent.monday, "2026-03-06T17:00:00-05:00", deadline: true),
        .minute("Soccer practice moved to Thursday at 5:30, bring water", Sent.monday, "2026-03-05T17:30:00-05:00"),
        .minute("Next Tuesday at 4pm", Sent.yearEnd, "2027-01-05T16:00:00-05:00"),
        .minute("Mon 4pm works", Sent.monday, "2026-03-02T16:00:00-05:00"),
        .minute("Dentist Tues. 3/10 @ 2:30pm", Sent.monday, "2026-03-10T14:30:00-04:00"),
        .minute("ok see u tmrw at 6", Sent.monday, "2026-03-03T18:00:00-05:00"),
        .minute("I'll be there at 5:30pm tomorrow", Sent.monday, "2026-03-03T17:30:00-05:00"),
    ]

    static let rangesCases: [TemporalCase] = [
        .minute("2-4pm", Sent.monday, "2026-03-02T14:00:00-05:00", end: "2026-03-02T16:00:00-05:00"),
        .minute("from 2 to 4", Sent.monday, "2026-03-02T14:00:00-05:00", end: "2026-03-02T16:00:00-05:00"),
        .minute("10am-2pm", Sent.monday, "2026-03-02T10:00:00-05:00", end: "2026-03-02T14:00:00-05:00"),
        .minute("11-1pm", Sent.monday, "2026-03-02T11:00:00-05:00", end: "2026-03-02T13:00:00-05:00"),
        .minute("between 3 and 5", Sent.monday, "2026-03-02T15:00:00-05:00", end: "2026-03-02T17:00:00-05:00"),
        .minute("from 7 to 9", Sent.monday, "2026-03-02T19:00:00-05:00", end: "2026-03-02T21:00:00-05:00"),
        .minute("9:30-11am", Sent.monday, "2026-03-02T09:30:00-05:00", end: "2026-03-02T11:00:00-05:00"),
        .minute("from 10am to noon", Sent.monday, "2026-03-02T10:00:00-05:00", end: "2026-03-02T12:00:00-05:00"),
        .minute("2pm-4", Sent.monday, "2026-03-02T14:00:00-05:00", end: "2026-03-02T16:00:00-05:00"),
        .minute("10pm-1am", Sent.monday, "2026-03-02T22:00:00-05:00", end: "2026-03-03T01:00:00-05:00"),
        .minute("Saturday 2-4", Sent.monday, "2026-03-07T14:00:00-05:00", end: "2026-03-07T16:00:00-05:00"),
        .minute("Saturday June 6 from 2-4pm", Sent.monday, "2026-06-06T14:00:00-04:00", end: "2026-06-06T16:00:00-04:00"),
        .minute(
            "Party is Saturday June 6 from 2-4pm at the park", Sent.monday, "2026-06-06T14:00:00-04:00",
            end: "2026-06-06T16:00:00-04:00"
        ),
        .minute("tomorrow 9:00-10:30", Sent.monday, "2026-03-03T09:00:00-05:00", end: "2026-03-03T10:30:00-05:00"),
        .minute("4pm to 6pm", Sent.monday, "2026-03-02T16:00:00-05:00", end: "2026-03-02T18:00:00-05:00"),
        .minute("Meeting moved from 3 to 4pm", Sent.monday, "2026-03-02T15:00:00-05:00", end: "2026-03-02T16:00:00-05:00"),
        .minute("between 9am and noon", Sent.monday, "2026-03-02T09:00:00-05:00", end: "2026-03-02T12:00:00-05:00"),
        .minute("2 - 4 pm", Sent.monday, "2026-03-02T14:00:00-05:00", end: "2026-03-02T16:00:00-05:00"),
    ]

    @Test(arguments: bareTimesCases) func bareTimes(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: dateAndTimeCases) func dateAndTime(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: rangesCases) func ranges(_ c: TemporalCase) throws { try c.check() }
}
