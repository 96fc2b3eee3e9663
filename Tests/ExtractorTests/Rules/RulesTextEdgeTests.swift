import Core
import Extractors
import Testing

/// Abbreviation periods and numbers at the end of a sentence, as the demo data has them.
@Suite struct RulesTextEdgeTests {
    typealias Line = RulesFixture.Line

    @Test func placeNamesKeepTitlesWithAPeriod() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Dentist for Sofia is Thursday, March 5 at 3:30pm at Dr. Chen's office. Can you take her?"),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        #expect(events[0].location == "Dr. Chen's office")
        #expect(events[0].time == LocalTime(hour: 15, minute: 30))
    }

    @Test func aNumberBeforeAPeriodEndsTheSentence() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"),
                 "The field trip is on Friday, March 13. Permission slips and the $15 fee are due by Friday, March 6."),
        ])
        let deadlines = try await RulesFixture.run(input, [.deadlines]).deadlines
        try #require(deadlines.count == 1)
        #expect(deadlines[0].task == "Permission slips and the $15 fee")
        #expect(deadlines[0].deadline == LocalDate(iso: "2026-03-06"))
    }
}
