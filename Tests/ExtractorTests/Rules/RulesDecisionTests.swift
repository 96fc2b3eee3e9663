import Core
import Extractors
import Testing

@Suite struct RulesDecisionTests {
    typealias Line = RulesFixture.Line

    @Test func clauseAfterThePlanIs() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "Should we do pizza or tacos for the team party?"),
            Line("maria", RulesSent.monday("09:20"), "Pizza! So the plan is Dan orders pizza for Saturday."),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        try #require(decisions.count == 1)
        #expect(decisions[0].decision == "Dan orders pizza for Saturday")
        #expect(decisions[0].category == .food)
        #expect(decisions[0].deadline == LocalDate(iso: "2026-03-07"))
        #expect(decisions[0].datePhrase == "Saturday")
        #expect(decisions[0].decidedBy == nil)
        #expect(decisions[0].sources == ["msg-2"])
    }

    @Test func bareAgreementTakesTheProposal() async throws {
        let input = try RulesFixture.conversation([
            Line("lee", RulesSent.monday("09:00"), "I can drive the carpool to swim practice on Tuesday"),
            Line("ana", RulesSent.monday("09:05"), "Works for us!"),
            Line("dan", RulesSent.monday("09:06"), "Agreed!"),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        try #require(decisions.count == 1)
        #expect(decisions[0].decision == "I can drive the carpool to swim practice on Tuesday")
        #expect(decisions[0].category == .carpool)
        #expect(decisions[0].deadline == LocalDate(iso: "2026-03-03"))
        #expect(decisions[0].sources == ["msg-1", "msg-2", "msg-3"])
    }

    @Test func negationsAndQuestionsAreNotDecisions() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "We haven't decided on the snacks yet."),
            Line("dan", RulesSent.monday("09:05"), "Is it settled then?"),
            Line("lee", RulesSent.monday("09:10"), "Maybe we could buy a gift for the coach"),
        ])
        #expect(try await RulesFixture.run(input, [.decisions]).decisions.isEmpty)
    }
}

/// The three decision forms added for issue 17: a request answered yes, a commitment, a settling reply; and the
/// questions that must not become decisions (information questions, invitations).
@Suite struct RulesDecisionRequestTests {
    typealias Line = RulesFixture.Line

    @Test func aRequestAnsweredYesCitesBoth() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "My car won't start. Can you take the kids to practice?"),
            Line("maria", RulesSent.monday("09:05"), "No problem, I'll take them."),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.map(\.sources) == [["msg-1", "msg-2"]])
        // Stated as what was settled, never as the question.
        #expect(decisions.map(\.decision) == ["Maria will take the kids to practice"])
    }

    /// A question nobody accepted is not a decision; accepted ones are stated as settled, by whoever took them on.
    @Test func questionsAreNotDecisionsUntilAccepted() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "Dentist is Thursday at 3:30pm. Can you take her?"),
            Line("maria", RulesSent.monday("09:05"), "Yes, I'll take her. Can you do soccer pickup on Saturday?"),
            Line("dan", RulesSent.monday("09:06"), "Sure."),
            Line("lee", RulesSent.monday("09:10"), "Could you bring the cones on Friday?"),
            Line("ana", RulesSent.monday("09:12"), "Want me to drive?"),
            Line("maria", RulesSent.monday("09:13"), "Yes please!"),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.map(\.decision) == ["Maria will take her", "Dan will do soccer pickup on Saturday", "Ana will drive"])
        #expect(!decisions.contains { $0.decision.hasSuffix("?") || $0.decision.lowercased().hasPrefix("can you") })
    }

    /// "Dan on Tue/Thu" is a recurring schedule: no one-off date.
    @Test func aRecurringScheduleHasNoDate() async throws {
        let input = try RulesFixture.conversation([
            Line("lee", RulesSent.monday("09:00"), "Works for us. So the carpool is set: Dan on Tue/Thu, Maria on Mon/Wed."),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.count == 1)
        #expect(decisions.first?.deadline == nil, "\(decisions)")
    }

    @Test func informationQuestionsAndInvitationsAreNotDecisions() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "Is it overnight?"),
            Line("maria", RulesSent.monday("09:05"), "Yes, back Sunday by noon."),
            Line("lee", RulesSent.monday("09:10"), "Can Leo come to the party?"),
            Line("ana", RulesSent.monday("09:15"), "Yes! I'll drop him off at 2."),
            Line("dan", RulesSent.monday("09:20"), "Great, see you then."),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.isEmpty, "\(decisions)")
    }

    @Test func commitmentsInARowAreOneDecision() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "I'll bring the drinks."),
            Line("maria", RulesSent.monday("09:05"), "I'll do the salads."),
            Line("lee", RulesSent.monday("09:10"), "Thanks both!"),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.map(\.sources) == [["msg-1", "msg-2", "msg-3"]])
    }

    @Test func aShortSettlingReplyCitesWhatItSettles() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "Pizza or tacos for the team dinner?"),
            Line("maria", RulesSent.monday("09:05"), "Tacos!"),
            Line("dan", RulesSent.monday("09:06"), "Tacos it is."),
        ])
        let decisions = try await RulesFixture.run(input, [.decisions]).decisions
        #expect(decisions.map(\.sources) == [["msg-2", "msg-3"]])
        #expect(decisions.first?.category == .food)
    }
}
