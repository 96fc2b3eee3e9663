import Core
import Extractors
import Testing

@Suite struct RulesRSVPTests {
    typealias Line = RulesFixture.Line

    @Test func oneYesOneNoAndOneSilentParticipant() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Emma's 8th birthday party is Saturday March 14 at 2pm at Sky Zone! Please RSVP by Friday."),
            Line("dan", RulesSent.monday("09:30"), "Count us in!"),
            Line("lee", RulesSent.monday("10:15"), "Sorry, we can't make it, we're away that weekend."),
            Line("maria", RulesSent.monday("10:20"), "No worries, thanks for letting me know!"),
        ])
        let rsvps = try await RulesFixture.run(input, [.rsvps]).rsvps
        try #require(rsvps.count == 1)
        let rsvp = rsvps[0]
        #expect(rsvp.event == "Emma's 8th birthday party")
        #expect(rsvp.eventDate == LocalDate(iso: "2026-03-14"))
        #expect(rsvp.deadline == LocalDate(iso: "2026-03-06"))
        #expect(rsvp.requestedBy == "maria")
        #expect(rsvp.sources == ["msg-1"])
        #expect(rsvp.response(of: "dan")?.response == "yes")
        #expect(rsvp.response(of: "dan")?.messageID == "msg-2")
        #expect(rsvp.response(of: "lee")?.response == "no")
        #expect(rsvp.response(of: "lee")?.messageID == "msg-3")
        #expect(rsvp.response(of: "ana") == nil)
        #expect(rsvp.response(of: "maria") == nil)
        #expect(rsvp.responses.count == 2)
    }

    @Test func latestAnswerWinsAndMaybeIsRecognised() async throws {
        let input = try RulesFixture.conversation([
            Line("lee", RulesSent.monday("08:00"), "Who's coming to the class picnic on Sunday at 11?"),
            Line("dan", RulesSent.monday("08:10"), "Maybe, depends on the weather"),
            Line("ana", RulesSent.monday("08:20"), "We'll try!"),
            Line("dan", RulesSent.monday("12:00"), "Yes we'll be there!"),
        ])
        let rsvps = try await RulesFixture.run(input, [.rsvps]).rsvps
        try #require(rsvps.count == 1)
        #expect(rsvps[0].event == "Class picnic")
        #expect(rsvps[0].eventDate == LocalDate(iso: "2026-03-08"))
        #expect(rsvps[0].deadline == nil)
        #expect(rsvps[0].requestedBy == "lee")
        #expect(rsvps[0].response(of: "dan")?.response == "yes")
        #expect(rsvps[0].response(of: "dan")?.messageID == "msg-4")
        #expect(rsvps[0].response(of: "ana")?.response == "maybe")
        #expect(rsvps[0].responses.count == 2)
    }

    @Test func requestWithoutAnEventDateIsSkipped() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Who's coming to the bake sale? RSVP by Friday please."),
            Line("dan", RulesSent.monday("09:30"), "Yes!"),
        ])
        #expect(try await RulesFixture.run(input, [.rsvps]).rsvps.isEmpty)
    }
}
