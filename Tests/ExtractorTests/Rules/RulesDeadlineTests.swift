import Core
import Extractors
import Testing

@Suite struct RulesDeadlineTests {
    typealias Line = RulesFixture.Line

    @Test func permissionSlipDueFridayByNoon() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Reminder: zoo trip permission slips and $12 are due Friday by noon."),
            Line("dan", RulesSent.monday("09:05"), "Thanks for the reminder!"),
        ])
        let deadlines = try await RulesFixture.run(input, [.deadlines]).deadlines
        try #require(deadlines.count == 1)
        let item = deadlines[0]
        #expect(item.deadline == LocalDate(iso: "2026-03-06"))
        #expect(item.time == LocalTime(hour: 12, minute: 0))
        #expect(item.task == "Zoo trip permission slips and $12")
        #expect(item.category == .school)
        #expect(item.priority == "medium")
        #expect(item.details == "$12")
        #expect(item.datePhrase == "due Friday by noon")
        #expect(item.sources == ["msg-1"])
    }

    @Test func feeDueTomorrowIsAHighPriorityPayment() async throws {
        let input = try RulesFixture.conversation([
            Line("lee", RulesSent.monday("18:30"), "The spring league fee is $85, please pay by tomorrow."),
        ])
        let deadlines = try await RulesFixture.run(input, [.deadlines]).deadlines
        try #require(deadlines.count == 1)
        #expect(deadlines[0].deadline == LocalDate(iso: "2026-03-03"))
        #expect(deadlines[0].time == nil)
        #expect(deadlines[0].category == .payment)
        #expect(deadlines[0].priority == "high")
        #expect(deadlines[0].details == "$85")
        #expect(deadlines[0].sources == ["msg-1"])
    }

    @Test func urgentWordsMakeItUrgentAndFormsForTheClinicAreMedical() async throws {
        let input = try RulesFixture.conversation([
            Line("ana", RulesSent.monday("08:00"), "The dentist forms have to be turned in by Thursday, asap please."),
        ])
        let deadlines = try await RulesFixture.run(input, [.deadlines]).deadlines
        try #require(deadlines.count == 1)
        #expect(deadlines[0].deadline == LocalDate(iso: "2026-03-05"))
        #expect(deadlines[0].category == .medical)
        #expect(deadlines[0].priority == "urgent")
    }

    @Test func rsvpDeadlinesQuestionsAndDoneTasksAreNotDeadlines() async throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Please RSVP by Friday for Emma's party on Saturday March 14."),
            Line("dan", RulesSent.monday("09:10"), "Is the science project due Friday?"),
            Line("lee", RulesSent.monday("09:20"), "We already turned in the form that was due Wednesday."),
            Line("ana", RulesSent.monday("09:30"), "The bake sale money is due."),
        ])
        let deadlines = try await RulesFixture.run(input, [.deadlines]).deadlines
        #expect(deadlines.isEmpty, "\(deadlines)")
    }

    @Test func pastDatesAreSkipped() async throws {
        let input = try RulesFixture.conversation([
            Line("dan", RulesSent.monday("09:00"), "The registration was due last Friday, hope you made it."),
        ])
        #expect(try await RulesFixture.run(input, [.deadlines]).deadlines.isEmpty)
    }
}
