import Extractors
import Testing

/// Day-grain forms. Expected dates worked out by hand from the 2026 calendar
/// (2026-03-02 is a Monday, 2026-11-22 a Sunday, 2026-12-30 a Wednesday).
@Suite struct TemporalDayTests {
    static let relativeDaysCases: [TemporalCase] = [
        .day("today", Sent.monday, "2026-03-02"),
        .day("tonight", Sent.monday, "2026-03-02"),
        .day("tomorrow", Sent.monday, "2026-03-03"),
        .day("Tomorrow", Sent.monday, "2026-03-03"),
        .day("tmrw", Sent.monday, "2026-03-03"),
        .day("yesterday", Sent.monday, "2026-03-01"),
        .day("in 3 days", Sent.monday, "2026-03-05"),
        .day("in two weeks", Sent.monday, "2026-03-16"),
        .day("in a week", Sent.monday, "2026-03-09"),
        .day("in 10 days", Sent.monday, "2026-03-12"),
        .day("end of the month", Sent.monday, "2026-03-31"),
        .day("end of month", Sent.monday, "2026-03-31"),
        .day("the end of this month", Sent.monday, "2026-03-31"),
        .day("end of next month", Sent.monday, "2026-04-30"),
        .day("end of the week", Sent.monday, "2026-03-06"),
        .day("end of March", Sent.monday, "2026-03-31"),
        .day("this weekend", Sent.monday, "2026-03-07"),
        .day("over the weekend", Sent.monday, "2026-03-07"),
        .day("next weekend", Sent.monday, "2026-03-14"),
        .day("this morning", Sent.monday, "2026-03-02"),
    ]

    static let weekdaysCases: [TemporalCase] = [
        .day("Friday", Sent.monday, "2026-03-06"),
        .day("friday", Sent.monday, "2026-03-06"),
        .day("this Friday", Sent.monday, "2026-03-06"),
        .day("this coming Saturday", Sent.monday, "2026-03-07"),
        .day("next Friday", Sent.monday, "2026-03-13"),
        .day("Fri", Sent.monday, "2026-03-06"),
        .day("Fri.", Sent.monday, "2026-03-06"),
        .day("see you on Tuesday", Sent.monday, "2026-03-03"),
        .day("Tues", Sent.monday, "2026-03-03"),
        .day("thurs", Sent.monday, "2026-03-05"),
        .day("Monday", Sent.monday, "2026-03-02"),
        .day("this Monday", Sent.monday, "2026-03-02"),
        .day("next Monday", Sent.monday, "2026-03-09"),
        .day("Sunday", Sent.monday, "2026-03-08"),
        .day("next Sunday", Sent.monday, "2026-03-15"),
        .day("last Friday", Sent.monday, "2026-02-27"),
        .day("last Monday", Sent.monday, "2026-02-23"),
        .day("on Sat", Sent.monday, "2026-03-07"),
        .day("Friday's game", Sent.monday, "2026-03-06"),
        .day("Wednesday evening", Sent.monday, "2026-03-04"),
    ]

    /// Sunday-versus-Monday boundaries of the Monday-to-Sunday week behind "next <weekday>".
    static let weekBoundariesCases: [TemporalCase] = [
        .day("Sunday", Sent.sundayNov, "2026-11-22"),
        .day("next Monday", Sent.sundayNov, "2026-11-23"),
        .day("Monday", Sent.sundayNov, "2026-11-23"),
        .day("next Saturday", Sent.sundayNov, "2026-11-28"),
        .day("next Sunday", Sent.sundayNov, "2026-11-29"),
        .day("this weekend", Sent.sundayNov, "2026-11-28"),
        .day("next Monday", Sent.mondayNov, "2026-11-30"),
        .day("next Sunday", Sent.mondayNov, "2026-12-06"),
        .day("Sunday", Sent.mondayNov, "2026-11-29"),
        .day("Monday", Sent.mondayNov, "2026-11-23"),
        .day("Saturday", Sent.saturdayNov, "2026-11-21"),
        .day("next Sunday", Sent.saturdayNov, "2026-11-29"),
        .day("next Friday", Sent.saturdayNov, "2026-11-27"),
        .day("this weekend", Sent.saturdayNov, "2026-11-21"),
        .day("next weekend", Sent.saturdayNov, "2026-11-28"),
    ]

    static let calendarDatesCases: [TemporalCase] = [
        .day("March 14", Sent.monday, "2026-03-14"),
        .day("Mar 14th", Sent.monday, "2026-03-14"),
        .day("mar. 14", Sent.monday, "2026-03-14"),
        .day("3/14", Sent.monday, "2026-03-14"),
        .day("the 14th", Sent.monday, "2026-03-14"),
        .day("on the 2nd", Sent.monday, "2026-03-02"),
        .day("the 1st", Sent.monday, "2026-04-01"),
        .day("the 31st", Sent.monday, "2026-03-31"),
        .day("2026-04-17", Sent.monday, "2026-04-17"),
        .day("March 1", Sent.monday, "2027-03-01"),
        .day("March 2", Sent.monday, "2026-03-02"),
        .day("12/25/26", Sent.monday, "2026-12-25"),
        .day("1/5/2027", Sent.monday, "2027-01-05"),
        .day("14 March", Sent.monday, "2026-03-14"),
        .day("the 2nd of April", Sent.monday, "2026-04-02"),
        .day("3rd of May", Sent.monday, "2026-05-03"),
        .day("Sept 3, 2027", Sent.monday, "2027-09-03"),
        .day("September 3rd", Sent.monday, "2026-09-03"),
        .day("Saturday June 6", Sent.monday, "2026-06-06"),
        .day("Friday the 13th", Sent.monday, "2026-03-13"),
        .day("Tue 3/10", Sent.monday, "2026-03-10"),
        .day("2026/05/01", Sent.monday, "2026-05-01"),
        .day("School closed March 14-16", Sent.monday, "2026-03-14"),
        .day("He turns 5 on May 4th", Sent.monday, "2026-05-04"),
    ]

    /// A message sent on Wednesday 2026-12-30: everything lands in the next year.
    static let yearEndCases: [TemporalCase] = [
        .day("next Tuesday", Sent.yearEnd, "2027-01-05"),
        .day("Tuesday", Sent.yearEnd, "2027-01-05"),
        .day("Jan 3", Sent.yearEnd, "2027-01-03"),
        .day("the 2nd", Sent.yearEnd, "2027-01-02"),
        .day("the 30th", Sent.yearEnd, "2026-12-30"),
        .day("the 31st", Sent.yearEnd, "2026-12-31"),
        .day("tomorrow", Sent.yearEnd, "2026-12-31"),
        .day("in 3 days", Sent.yearEnd, "2027-01-02"),
        .day("end of the month", Sent.yearEnd, "2026-12-31"),
        .day("end of next month", Sent.yearEnd, "2027-01-31"),
        .day("next Friday", Sent.yearEnd, "2027-01-08"),
        .day("Friday", Sent.yearEnd, "2027-01-01"),
        .day("12/31", Sent.yearEnd, "2026-12-31"),
        .day("Dec 29", Sent.yearEnd, "2027-12-29"),
        .day("this weekend", Sent.yearEnd, "2027-01-02"),
        .day("in 2 weeks", Sent.yearEnd, "2027-01-13"),
    ]

    static let leapDaysCases: [TemporalCase] = [
        .day("Feb 29", Sent.leapFeb, "2028-02-29"),
        .day("in 2 days", Sent.leapFeb, "2028-02-29"),
        .day("end of the month", Sent.leapFeb, "2028-02-29"),
        .day("the 29th", Sent.leapFeb, "2028-02-29"),
        .day("Tuesday", Sent.leapFeb, "2028-02-29"),
        .day("Feb 29", Sent.plainFeb, "2028-02-29"),
        .day("the 29th", Sent.plainFeb, "2027-03-29"),
        .day("the 30th", Sent.plainFeb, "2027-03-30"),
        .day("end of the month", Sent.plainFeb, "2027-02-28"),
        .day("2/29/2028", Sent.plainFeb, "2028-02-29"),
        .day("in 2 days", Sent.plainFeb, "2027-03-01"),
    ]

    static let deadlinesCases: [TemporalCase] = [
        .day("by Friday", Sent.monday, "2026-03-06", deadline: true),
        .day("before Thursday", Sent.monday, "2026-03-05", deadline: true),
        .day("no later than the 10th", Sent.monday, "2026-03-10", deadline: true),
        .day("due Friday", Sent.monday, "2026-03-06", deadline: true),
        .day("due by March 20", Sent.monday, "2026-03-20", deadline: true),
        .day("by end of the month", Sent.monday, "2026-03-31", deadline: true),
        .day("Permission slips due by Friday!", Sent.monday, "2026-03-06", deadline: true),
        .day("by next Monday", Sent.sundayNov, "2026-11-23", deadline: true),
        .day("not later than 3/20", Sent.monday, "2026-03-20", deadline: true),
        .day("by the end of the week", Sent.monday, "2026-03-06", deadline: true),
    ]

    @Test(arguments: relativeDaysCases) func relativeDays(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: weekdaysCases) func weekdays(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: weekBoundariesCases) func weekBoundaries(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: calendarDatesCases) func calendarDates(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: yearEndCases) func yearEnd(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: leapDaysCases) func leapDays(_ c: TemporalCase) throws { try c.check() }
    @Test(arguments: deadlinesCases) func deadlines(_ c: TemporalCase) throws { try c.check() }
}
