@testable import Extractors
import Core
import Testing

/// Each refusal, item by item, with the rest of the answer kept; and noisy answers.
@Suite("Reconciliation: refusals")
struct ReconciliationRefusalTests {
    let state = Night.state(Night.event("Emma's party", day: 12, ["m1"]), Night.deadline("Permission slip", day: 11, ["m2"]),
                            Night.priority("m2"))

    private func apply(_ answer: NightAnswer, messages: [String] = ["m10"], to state: ConversationState? = nil) -> ReconciliationResult {
        let state = state ?? self.state
        return Reconciliation.apply(state, request: Night.request(state, day: 4, messages: messages), answer: answer)
    }

    @Test func anUnknownRefIsRefused() {
        let result = apply(NightAnswer(verdicts: [Verdict(ref: "e9", .cancelled), Verdict(ref: "t1", .met(for: ["ana"]))]))
        #expect(result.refusals.map(\.kind) == [.unknownRef])
        #expect(result.refusalCounts == [.unknownRef: 1])
        #expect(result.state["t1"]?.metFor == ["ana"], "the rest of the answer is kept")
    }

    @Test func closingAnItemNotShownIsRefused() {
        let closed = apply(NightAnswer(verdicts: [Verdict(ref: "e1", .cancelled)])).state
        let result = apply(NightAnswer(verdicts: [Verdict(ref: "e1", .changed(Night.event("Emma's party", day: 12, ["m1", "m10"])))]),
                           to: closed)
        #expect(result.refusals.map(\.kind) == [.notShown])
        #expect(result.state["e1"]?.status == .cancelled)
        // Open, but left out of the request (over the cap): refused too.
        let hidden = Reconciliation.apply(state, request: NightRequest(now: Night.at(4), timeZone: Night.zone, shownRefs: ["t1"],
                                                                       shownMessages: ["m10"]),
                                          answer: NightAnswer(verdicts: [Verdict(ref: "e1", .cancelled)]))
        #expect(hidden.refusals.map(\.kind) == [.notShown])
    }

    @Test func reOpeningWhatTheParentClosedInTheAppIsRefused() {
        let stored = ConversationState(items: state.items.map { item in
            var item = item
            item.closedInApp = item.ref == "t1"
            return item
        })
        let result = apply(NightAnswer(verdicts: [Verdict(ref: "t1", .changed(Night.deadline("Permission slip", day: 11, ["m2", "m10"])))],
                                       newItems: [NewItem(Night.deadline("Reminder: permission slip", day: 11, ["m10"]))]), to: stored)
        #expect(result.refusals.map(\.kind) == [.reopensParentClosed, .reopensParentClosed])
        #expect(Night.view(result.state, day: 4).deadlines.isEmpty)
    }

    @Test func aMoveItsMessagesDoNotBackIsRefused() {
        // Cites only the message it already rested on, or a message the request did not carry.
        for sources in [["m1"], ["m1", "m99"]] {
            let result = apply(NightAnswer(verdicts: [Verdict(ref: "e1", .changed(Night.event("Emma's party", day: 19, sources)))]))
            #expect(result.refusals.map(\.kind) == [.unbackedMove])
            #expect(result.state["e1"]?.body.keyDate == Night.date(12))
        }
        // A new place with no new date needs no new message.
        let placed = apply(NightAnswer(verdicts: [Verdict(ref: "e1", .changed(Night.event("Emma's party", day: 12, place: "Gym", ["m1"])))]))
        #expect(placed.refusals.isEmpty)
    }

    @Test func anItemOrEvidenceCitingNoMessageOfTheRequestIsRefused() {
        let result = apply(NightAnswer(verdicts: [Verdict(ref: "e1", .cancelled, evidence: ["m77"])],
                                       newItems: [NewItem(Night.event("Zoo trip", day: 20, ["m77"]))]))
        #expect(result.refusals.map(\.kind) == [.notCitedInRequest, .notCitedInRequest])
        #expect(result.state.items.count == 3)
        #expect(result.state["e1"]?.isOpen == true)
    }

    @Test func aRepeatedVerdictAWrongFeatureAndAnUnknownParticipantAreRefused() {
        let result = apply(NightAnswer(verdicts: [
            Verdict(ref: "t1", .met(for: ["ana"])), Verdict(ref: "t1", .cancelled),
            Verdict(ref: "e1", .met(for: ["ana"])), Verdict(ref: "e1", .changed(Night.deadline("Party", day: 12, ["m10"]))),
            Verdict(ref: "p1", .met(for: ["zoe"])),
        ]))
        #expect(result.refusals.map(\.kind) == [.repeatedVerdict, .wrongFeature, .repeatedVerdict, .unknownParticipant])
        #expect(result.state["t1"]?.status == .open)
        #expect(result.state["t1"]?.metFor == ["ana"])
    }

    /// A noisy answer: a wrong ref, a re-dated item, a repeated item, an invented item, beside a right change.
    @Test func aNoisyAnswerKeepsWhatIsRightAndRefusesWhatIsInvented() {
        let right = Night.event("Emma's party", day: 13, time: "15:00", ["m1", "m10"])
        let answer = NightAnswer(
            verdicts: [Verdict(ref: "e1", .changed(right)), Verdict(ref: "e4", .cancelled),
                       Verdict(ref: "t1", .changed(Night.deadline("Permission slip", day: 12, ["m2"])))],
            newItems: [NewItem(Night.event("Emma's birthday party", day: 13, time: "15:00", ["m10"])),
                       NewItem(Night.event("Emma's party", day: 13, time: "15:00", ["m1", "m10"])),
                       NewItem(Night.event("Zoo trip", day: 20, ["m55"])),
                       NewItem(Night.deadline("Bring a dish", day: 14, ["m10", "m11"]))])
        let result = apply(answer, messages: ["m10", "m11"])
        #expect(result.refusals.map(\.kind) == [.unknownRef, .unbackedMove, .notCitedInRequest])
        let shown = Night.view(result.state, day: 4)
        #expect(shown.events.map(\.date) == [Night.date(13)], "the repeated items are the moved event, not new ones")
        #expect(shown.deadlines.map(\.deadline) == [Night.date(11), Night.date(14)])
        #expect(result.state.items.count == 4)
    }
}
