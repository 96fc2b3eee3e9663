import Chrono
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
        #expect(decisions[0].category == "food")
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
        #expect(decisions[0].category == "carpool")
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
