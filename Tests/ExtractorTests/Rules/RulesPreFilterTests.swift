import Extractors
import Foundation
import Testing

@Suite struct RulesPreFilterTests {
    typealias Line = RulesFixture.Line

    @Test(arguments: ["Yes we'll be there!", "Is practice on?", "Count us in", "Sorry, can't make it", "Game is Saturday at 10",
                      "URGENT call me", "So the plan is pizza", "maybe"])
    func keeps(_ text: String) throws {
        let message = InputMessage(id: "x", senderID: "dan", sentAt: try ReferenceInstant.parse(RulesSent.monday("09:00")), text: text)
        #expect(PreFilter().needsModel(message, timeZone: RulesFixture.zone))
    }

    @Test(arguments: ["lol 😂", "thanks!", "Haha so cute", "❤️", "ok"])
    func drops(_ text: String) throws {
        let message = InputMessage(id: "x", senderID: "dan", sentAt: try ReferenceInstant.parse(RulesSent.monday("09:00")), text: text)
        #expect(!PreFilter().needsModel(message, timeZone: RulesFixture.zone))
    }

    @Test func contextStaysAndNewChitChatGoes() throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("08:00"), "lol"),
            Line("maria", RulesSent.monday("09:00"), "Who's coming Saturday? RSVP please"),
            Line("dan", RulesSent.monday("09:10"), "thanks!"),
            Line("lee", RulesSent.monday("09:20"), "Yes we'll be there!"),
            Line("ana", RulesSent.monday("09:30"), "lol 😂"),
        ], firstNewIndex: 2)
        let (kept, skipped) = PreFilter().filter(input)
        #expect(skipped == 2)
        #expect(kept.messages.map(\.id) == ["msg-1", "msg-2", "msg-4"])
        #expect(kept.firstNewIndex == 2)
        #expect(kept.conversationID == input.conversationID)
        #expect(kept.now == input.now)
    }

    @Test func nothingNewSurvivesMeansNoNewMessages() throws {
        let input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("09:00"), "Practice is Thursday at 5"),
            Line("dan", RulesSent.monday("09:10"), "thanks!"),
            Line("lee", RulesSent.monday("09:20"), "lol 😂"),
        ], firstNewIndex: 1)
        let (kept, skipped) = PreFilter().filter(input)
        #expect(skipped == 2)
        #expect(kept.messages.map(\.id) == ["msg-1"])
        #expect(kept.firstNewIndex == kept.messages.count)
    }
}
