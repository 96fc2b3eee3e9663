import Core
import Extractors
import Testing

@Suite struct RulesCalendarTests {
    typealias Line = RulesFixture.Line

    @Test func fieldTripWithTimeRange() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Field trip to the Science Museum on Friday March 6 from 9am to 2pm. Please send a bag lunch."),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        let event = events[0]
        #expect(event.title == "Field trip to the Science Museum")
        #expect(event.date == LocalDate(iso: "2026-03-06"))
        #expect(event.time == LocalTime(hour: 9, minute: 0))
        #expect(event.endTime == LocalTime(hour: 14, minute: 0))
        #expect(event.location == nil)
        #expect(event.category == .school)
        #expect(event.confidence == 0.8)
        #expect(event.description.hasPrefix("Field trip to the Science Museum"))
        #expect(event.sources == ["msg-1"])
    }

    @Test func birthdayPartyWithPlace() async throws {
        let input = try RulesFixture.conversation([
            Line("lee", RulesSent.monday("10:00"), "Emma's 8th birthday party is Saturday March 14 at 2pm at Sky Zone!"),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        #expect(events[0].title == "Emma's 8th birthday party")
        #expect(events[0].date == LocalDate(iso: "2026-03-14"))
        #expect(events[0].time == LocalTime(hour: 14, minute: 0))
        #expect(events[0].location == "Sky Zone")
        #expect(events[0].category == .social)
        #expect(events[0].confidence == 0.9)
    }

    @Test func dayAndTimeSaidApartAreOnePhrase() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("12:00"), "Soccer game Saturday, around 10am @ Lincoln Park"),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        #expect(events[0].title == "Soccer game")
        #expect(events[0].date == LocalDate(iso: "2026-03-07"))
        #expect(events[0].time == LocalTime(hour: 10, minute: 0))
        #expect(events[0].datePhrase == "Saturday, around 10am")
        #expect(events[0].location == "Lincoln Park")
        #expect(events[0].category == .activity)
    }

    @Test func cancelledEventProducesNothing() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("12:00"), "Soccer practice Thursday at 5pm at Riverside Field."),
            Line("dan", RulesSent.monday("15:00"), "Update: practice Thursday is cancelled because of the storm."),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        #expect(events.isEmpty, "\(events)")
    }

    @Test func movedEventKeepsOnlyTheNewDate() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("12:00"), "Piano recital is Friday at 6pm at Town Hall."),
            Line("maria", RulesSent.tuesday("08:00"), "Heads up: the recital moved to Saturday at 4pm."),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        #expect(events[0].title == "Piano recital")
        #expect(events[0].date == LocalDate(iso: "2026-03-07"))
        #expect(events[0].time == LocalTime(hour: 16, minute: 0))
        #expect(events[0].location == "Town Hall")
        #expect(events[0].sources == ["msg-1", "msg-2"])
    }

    @Test func repeatedEventIsOneItemCitingBoth() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Picture day is Thursday!"),
            Line("ana", RulesSent.monday("10:00"), "Don't forget picture day Thursday, wear the blue shirt."),
        ])
        let events = try await RulesFixture.run(input, [.calendarEvents]).events
        try #require(events.count == 1)
        #expect(events[0].title == "Picture day")
        #expect(events[0].date == LocalDate(iso: "2026-03-05"))
        #expect(events[0].sources == ["msg-1", "msg-2"])
        #expect(events[0].category == .school)
    }

    @Test func pastQuestionsAndVagueMentionsAreSkipped() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "What a game last Saturday!"),
            Line("lee", RulesSent.monday("09:05"), "Is practice on Thursday?"),
            Line("ana", RulesSent.monday("09:10"), "We should plan a playdate sometime."),
        ])
        #expect(try await RulesFixture.run(input, [.calendarEvents]).events.isEmpty)
    }
}
