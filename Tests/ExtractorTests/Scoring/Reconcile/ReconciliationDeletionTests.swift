@testable import Extractors
import Core
import Testing

/// The deletion rule (docs/over-nights.md phase 2 point 3): a deleted message backs nothing; an item left with no
/// message closes as `notBacked`, one another message backs stays.
@Suite("Reconciliation: deleted messages")
struct ReconciliationDeletionTests {
    /// The night of the 4th carrying `messages`, with `deleted` deleted since the last night.
    static func request(_ state: ConversationState, deleted: Set<String>, messages: [String] = []) -> NightRequest {
        var request = Night.request(state, day: 4, messages: messages)
        request.deletedMessages = deleted
        return request
    }

    @Test func anItemRestingOnlyOnADeletedMessageClosesAndOneBackedByAnotherStays() {
        let state = Night.state(Night.event("Game", day: 12, ["m1"]), Night.event("Party", day: 13, ["m2", "m3"]),
                                Night.deadline("Permission slip", day: 11, ["m1", "m4"]), Night.priority("m1"))
        let result = Reconciliation.apply(state, request: Self.request(state, deleted: ["m1"]), answer: NightAnswer())
        #expect(result.refusals.isEmpty)
        #expect(result.changes == [ItemChange(ref: "e1", .closed(.notBacked, removesRow: true)),
                                   ItemChange(ref: "t1", .updated),
                                   ItemChange(ref: "p1", .closed(.notBacked, removesRow: true))])
        #expect(result.state["e1"]?.status == .notBacked)
        #expect(result.state["t1"]?.body.sources == ["m4"], "the deleted id is dropped from the sources")
        #expect(result.state["e2"]?.body.sources == ["m2", "m3"], "an item not resting on it is untouched")
        let view = Night.view(result.state, day: 4)
        #expect(view.events.map(\.title) == ["Party"])
        #expect(view.deadlines.map(\.task) == ["Permission slip"])
        #expect(view.priorities.isEmpty)
    }

    @Test func aRowTheAppWroteOrTheParentConfirmedStaysWhenItsMessageIsDeleted() {
        var state = Night.state(Night.event("Game", day: 12, ["m1"]), Night.event("Recital", day: 14, ["m2"]))
        state = ConversationState(items: state.items.map { item in
            var item = item
            if item.ref == "e1" { item.origin = .app }
            if item.ref == "e2" { item.confirmed = true }
            return item
        })
        let result = Reconciliation.apply(state, request: Self.request(state, deleted: ["m1", "m2"]), answer: NightAnswer())
        #expect(result.changes == [ItemChange(ref: "e1", .closed(.notBacked, removesRow: false)),
                                   ItemChange(ref: "e2", .closed(.notBacked, removesRow: false))])
        #expect(result.state["e2"]?.confirmed == true)
    }

    @Test func aDeletedAnswerNoLongerAnswersTheInvitation() {
        let state = Night.state(Night.rsvp("Emma's party", day: 12, ["m1", "m2"], answers: [("ana", "yes", "m2"), ("dan", "no", "m3")]))
        let result = Reconciliation.apply(state, request: Self.request(state, deleted: ["m2"]), answer: NightAnswer())
        #expect(result.changes == [ItemChange(ref: "r1", .updated)])
        guard case .rsvp(let rsvp) = result.state["r1"]?.body else { return #expect(Bool(false), "r1 is an RSVP") }
        #expect(rsvp.responses.map(\.participantID) == ["dan"])
        #expect(rsvp.sources == ["m1"])
    }

    @Test func closedItemsOnlyLoseTheIdAndTheNightsAnswerMayBackAnItemAgain() {
        var state = Night.state(Night.event("Game", day: 12, ["m1"]), Night.event("Fair", day: 15, ["m5", "m6"]))
        state = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m9"]),
                                     answer: NightAnswer(verdicts: [Verdict(ref: "e2", .cancelled, evidence: ["m9"])])).state
        // The game's message was deleted and posted again with a new date, which the answer cites.
        let result = Reconciliation.apply(state, request: Self.request(state, deleted: ["m1", "m5"], messages: ["m10"]), answer: NightAnswer(
            verdicts: [Verdict(ref: "e1", .changed(Night.event("Game", day: 13, ["m1", "m10"])))]))
        #expect(result.refusals.isEmpty)
        #expect(result.changes == [ItemChange(ref: "e1", .updated)], "one update, nothing recorded for the cancelled e2")
        #expect(result.state["e1"]?.body.sources == ["m10"])
        #expect(Night.view(result.state, day: 4).events.map(\.date) == [Night.date(13)])
        #expect(result.state["e2"]?.status == .cancelled)
        #expect(result.state["e2"]?.body.sources == ["m6"])
    }

    @Test func nothingDeletedChangesNothing() {
        let state = Night.state(Night.event("Game", day: 12, ["m1"]))
        let result = Reconciliation.apply(state, request: Self.request(state, deleted: []), answer: NightAnswer())
        #expect(result.changes.isEmpty)
        #expect(result.state == state)
    }
}
