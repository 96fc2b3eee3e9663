import Extractors
import Foundation
import Testing

@Suite struct RulesPreFilterTests {
    typealias Line = RulesFixture.Line

    @Test(arguments: ["Yes we'll be there!", "Is practice on?", "Count us in", "Sorry, can't make it", "Game is Saturday at 10",
                      "URGENT call me", "So the plan is pizza", "maybe",
                      // Commitments, answers and other languages that no cue list names.
                      "Chens are in, we'll bring potato salad", "I'll take her", "I can drive", "we're in", "ok", "👍",
                      "me too", "Wir bringen den Kuchen mit", "Claro, yo la llevo", "Nous venons avec les enfants",
                      "lol ok fine I'll do it", "thanks, see you then", "Running late, Emma has her cleats"])
    func keeps(_ text: String) throws {
        let message = InputMessage(id: "x", senderID: "dan", sentAt: try ReferenceInstant.parse(RulesSent.monday("09:00")), text: text)
        #expect(PreFilter().needsModel(message, timeZone: RulesFixture.zone))
    }

    @Test(arguments: ["lol 😂", "thanks!", "Haha so cute", "❤️", "Thank you so much!!", "omg love it 😍", "Good morning everyone",
                      "Happy birthday!! 🎉", "", "gracias!!"])
    func drops(_ text: String) throws {
        let message = InputMessage(id: "x", senderID: "dan", sentAt: try ReferenceInstant.parse(RulesSent.monday("09:00")), text: text)
        #expect(!PreFilter().needsModel(message, timeZone: RulesFixture.zone))
    }

    @Test func contextStaysAndNewChitChatGoes() throws {
        var input = try RulesFixture.conversation([
            Line("maria", RulesSent.monday("08:00"), "lol"),
            Line("maria", RulesSent.monday("09:00"), "Who's coming Saturday? RSVP please"),
            Line("dan", RulesSent.monday("09:10"), "thanks!"),
            Line("lee", RulesSent.monday("09:20"), "Yes we'll be there!"),
            Line("ana", RulesSent.monday("09:30"), "lol 😂"),
        ], firstNewIndex: 2)
        input.deletedMessageIDs = ["msg-0-deleted"]
        let (kept, skipped) = PreFilter().filter(input)
        #expect(kept.deletedMessageIDs == ["msg-0-deleted"], "the messages deleted since the last night go on")
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
