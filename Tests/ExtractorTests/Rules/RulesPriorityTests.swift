import Extractors
import Testing

@Suite struct RulesPriorityTests {
    typealias Line = RulesFixture.Line

    /// Questions to the group and RSVP requests are not flagged (the labels leave them to RSVPs and events).
    @Test func urgentAndHighCuesButNotGroupQuestions() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "URGENT: early dismissal at 12:30 because of the storm. Please pick up your kids."),
            Line("dan", RulesSent.monday("09:05"), "Leo has a fever so we'll stay home."),
            Line("lee", RulesSent.monday("09:10"), "Does anyone have an extra soccer ball I could borrow?"),
            Line("ana", RulesSent.monday("09:15"), "Haha love it"),
        ], now: RulesSent.monday("09:30"))
        let priorities = try await RulesFixture.run(input, [.priorityMessages]).priorities
        try #require(priorities.count == 2)
        #expect(priorities[0].messageID == "msg-1")
        #expect(priorities[0].priority == "urgent")
        #expect(priorities[0].actionRequired)
        // The reason says why in a parent's words, not the priority again.
        #expect(priorities[0].reason == "Early dismissal at 12:30: pick up your kids")
        #expect(priorities[1].messageID == "msg-2")
        #expect(priorities[1].priority == "high")
        #expect(priorities[1].reason == "Leo has a fever: plans may change")
        #expect(!priorities[1].actionRequired)
    }

    @Test func closuresAndChangedPlans() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("06:00"), "Snow day! All district schools are closed."),
            Line("dan", RulesSent.monday("07:00"), "Change of plans: the recital is at the library instead."),
            Line("lee", RulesSent.monday("07:05"), "Please RSVP for the class party."),
        ], now: RulesSent.monday("09:30"))
        let priorities = try await RulesFixture.run(input, [.priorityMessages]).priorities
        #expect(priorities.map(\.messageID) == ["msg-1", "msg-2"])
        #expect(priorities.map(\.priority) == ["urgent", "high"])
    }

    @Test func theReadersOwnMessagesAndStaleNewsAreLeftOut() async throws {
        let dan = RulesFixture.participants[1]
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "Urgent: can someone grab Mia from school?"),
            Line("maria", RulesSent.monday("09:10"), "Practice today is cancelled!"),
        ], now: "2026-03-04T09:00:00-05:00", viewer: dan)
        let priorities = try await RulesFixture.run(input, [.priorityMessages]).priorities
        #expect(priorities.isEmpty, "\(priorities)")
    }

    @Test func sameDayPlansNeedAnEventOrARequest() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("07:00"), "Swim practice today at 4, can you drive?"),
            Line("dan", RulesSent.monday("07:05"), "Such a sunny day today"),
        ], now: RulesSent.monday("08:00"))
        let priorities = try await RulesFixture.run(input, [.priorityMessages]).priorities
        try #require(priorities.count == 1)
        #expect(priorities[0].messageID == "msg-1")
        #expect(priorities[0].priority == "urgent")
        #expect(priorities[0].actionRequired)
    }
}
