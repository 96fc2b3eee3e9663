@testable import Extractors
import Core
import Testing

/// The reconciliation's rules per feature (docs/over-nights.md), night by night on value types.
@Suite("Reconciliation: rules")
struct ReconciliationTests {
    @Test func aMovedEventIsOneItemAtItsLatestDateTimeAndPlace() {
        var state = Night.state(Night.event("Emma's party", day: 12, ["m1"]))
        let moves: [(Int, String, ItemBody)] = [
            (4, "m2", Night.event("Emma's party", day: 13, time: "15:00", ["m1", "m2"])),
            (5, "m3", Night.event("Emma's party", day: 13, time: "16:00", place: "Skate Park", ["m1", "m3"])),
        ]
        for (day, message, body) in moves {
            let result = Reconciliation.apply(state, request: Night.request(state, day: day, messages: [message]),
                                              answer: NightAnswer(verdicts: [Verdict(ref: "e1", .changed(body))]))
            #expect(result.refusals.isEmpty)
            #expect(result.changes == [ItemChange(ref: "e1", .updated)])
            state = result.state
        }
        let shown = Night.view(state, day: 5).events
        #expect(shown.count == 1)
        #expect(shown.first?.date == Night.date(13))
        #expect(shown.first?.time == LocalTime(iso: "16:00"))
        #expect(shown.first?.location == "Skate Park")
        #expect(shown.first?.sources == ["m1", "m2", "m3"])
    }

    @Test func aMoveRestatedAsANewItemUpdatesTheItemInsteadOfAddingOne() {
        let state = Night.state(Night.event("Emma's birthday party", day: 12, ["m1"]))
        let result = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m1", "m2"]),
                                          answer: NightAnswer(newItems: [NewItem(Night.event("Party for Emma", day: 13, ["m1", "m2"]))]))
        #expect(result.state.items.count == 1)
        #expect(Night.view(result.state, day: 4).events.map(\.date) == [Night.date(13)])
    }

    @Test func aReMentionInOtherWordsAndARePostAreTheSameItem() {
        let state = Night.state(Night.event("Emma's birthday party", day: 12, ["m1"]), Night.deadline("Permission slip", day: 11, ["m2"]))
        let answer = NightAnswer(newItems: [NewItem(Night.event("Emma's bday party", day: 12, ["m30"])),
                                            NewItem(Night.deadline("Reminder: permission slip", day: 11, ["m31"]))])
        let result = Reconciliation.apply(state, request: Night.request(state, day: 6, messages: ["m30", "m31"]), answer: answer)
        #expect(result.state.items.count == 2)
        #expect(result.state["e1"]?.body.sources == ["m1", "m30"])
        #expect(result.state["t1"]?.body.sources == ["m2", "m31"])
    }

    @Test func aCancelledEventIsGoneAndOnlyAServiceRowNobodyActedOnIsRemoved() {
        var state = Night.state(Night.event("Game", day: 12, ["m1"]), Night.event("Recital", day: 14, ["m2"]),
                                Night.event("Fair", day: 15, ["m3"]))
        state = ConversationState(items: state.items.map { item in
            var item = item
            if item.ref == "e2" { item.origin = .app }
            if item.ref == "e3" { item.confirmed = true }
            return item
        })
        let result = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m9"]), answer: NightAnswer(verdicts: [
            Verdict(ref: "e1", .cancelled, evidence: ["m9"]), Verdict(ref: "e2", .cancelled), Verdict(ref: "e3", .cancelled),
        ]))
        #expect(Night.view(result.state, day: 4).events.isEmpty)
        #expect(result.changes == [ItemChange(ref: "e1", .closed(.cancelled, removesRow: true)),
                                   ItemChange(ref: "e2", .closed(.cancelled, removesRow: false)),
                                   ItemChange(ref: "e3", .closed(.cancelled, removesRow: false))])
        #expect(result.state["e3"]?.confirmed == true, "what the parent confirmed stays confirmed")
    }

    @Test func aChangedDecisionReplacesTheEarlierOne() {
        let state = Night.state(Night.decision("Dan drives Tuesday", ["m1", "m2"]))
        let result = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m40"]), answer: NightAnswer(
            verdicts: [Verdict(ref: "c1", .changed(Night.decision("Maria drives Tuesday", ["m40"])))]))
        #expect(Night.view(result.state, day: 4).decisions.map(\.decision) == ["Maria drives Tuesday"])
        // The same change given as a new item citing the settling exchange replaces it too.
        let asNew = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m2", "m40"]), answer: NightAnswer(
            newItems: [NewItem(Night.decision("Maria drives Tuesday now", ["m2", "m40"]))]))
        #expect(Night.view(asNew.state, day: 4).decisions.map(\.decision) == ["Maria drives Tuesday now"])
    }

    @Test func aPlanCalledOffIsGone() {
        let state = Night.state(Night.decision("We share the cab to the match", ["m1"]))
        let result = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m7"]),
                                          answer: NightAnswer(verdicts: [Verdict(ref: "c1", .cancelled, evidence: ["m7"])]))
        #expect(Night.view(result.state, day: 4).decisions.isEmpty)
    }

    @Test func anRSVPShowsTheLatestAnswerHoweverOldTheInvitationAndItsPriorityIsMetForHer() {
        var state = Night.state(Night.rsvp("Emma's party", day: 20, ["m1"], answers: [("dan", "yes", "m2")]), Night.priority("m1"))
        // Two weeks and 60 messages later the invitation is far out of the context: only the new messages are carried.
        for (day, answer, message) in [(17, "yes", "m61"), (18, "no", "m70")] {
            let result = Reconciliation.apply(state, request: Night.request(state, day: day, messages: [message]), answer: NightAnswer(
                verdicts: [Verdict(ref: "r1", .changed(Night.rsvp("Emma's party", day: 20, ["m1", message], answers: [("ana", answer, message)])))]))
            #expect(result.refusals.isEmpty)
            state = result.state
        }
        let rsvp = Night.view(state, day: 18).rsvps.first
        #expect(rsvp?.response(of: "ana")?.response == "no")
        #expect(rsvp?.response(of: "dan")?.response == "yes", "another participant's answer stays")
        #expect(Night.view(state, day: 18).priorities.isEmpty, "once she answered, the invitation is no longer a priority for her")
        #expect(Night.view(state, day: 18, user: "jen").priorities.map(\.messageID) == ["m1"])
    }

    @Test func aDeadlineMetByTheParentClosesForHerAndStaysOpenForTheOthers() {
        let state = Night.state(Night.deadline("Permission slip and $15", day: 11, ["m1"]))
        let result = Reconciliation.apply(state, request: Night.request(state, day: 5, messages: ["m9"]),
                                          answer: NightAnswer(verdicts: [Verdict(ref: "t1", .met(for: ["ana", "dan"]), evidence: ["m9"])]))
        #expect(result.changes == [ItemChange(ref: "t1", .met(for: ["ana", "dan"]))])
        #expect(Night.view(result.state, day: 5).deadlines.isEmpty)
        #expect(Night.view(result.state, day: 5, user: "dan").deadlines.isEmpty)
        #expect(Night.view(result.state, day: 5, user: "jen").deadlines.count == 1)
        // A task called off is gone for everyone.
        let off = Reconciliation.apply(result.state, request: Night.request(result.state, day: 6, messages: ["m10"]),
                                       answer: NightAnswer(verdicts: [Verdict(ref: "t1", .cancelled)]))
        #expect(Night.view(off.state, day: 6, user: "jen").deadlines.isEmpty)
    }

    @Test func anUrgentPriorityLapsesAfterItsDayAndAHighOneOnceMet() {
        let state = Reconciliation.apply(ConversationState(), request: Night.request(ConversationState(), day: 3, messages: ["m1", "m2"]),
                                         answer: NightAnswer(newItems: [NewItem(Night.priority("m1", "urgent"), until: Night.date(3)),
                                                                        NewItem(Night.priority("m2"))])).state
        #expect(Night.view(state, day: 3).priorities.count == 2)
        let next = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m3"]),
                                        answer: NightAnswer(verdicts: [Verdict(ref: "p2", .met(for: ["ana"]))]))
        #expect(Night.view(next.state, day: 4).priorities.isEmpty)
        #expect(next.changes.contains(ItemChange(ref: "p1", .closed(.lapsed, removesRow: true))))
        #expect(Night.view(next.state, day: 4, user: "jen").priorities.map(\.messageID) == ["m2"])
        // An urgent one without a day ends when the answer says so.
        let flagged = Night.state(Night.priority("m5", "urgent"))
        let ended = Reconciliation.apply(flagged, request: Night.request(flagged, day: 4, messages: ["m6"]),
                                         answer: NightAnswer(verdicts: [Verdict(ref: "p1", .ended)]))
        #expect(ended.state["p1"]?.status == .ended)
    }

    @Test func nothingDatedBeforeTodayIsShownOrAdded() {
        let state = Night.state(Night.event("Game", day: 5, ["m1"]), Night.deadline("Form", day: 4, ["m2"]),
                                Night.rsvp("Party", day: 6, ["m3"]), Night.event("Fair", day: 9, ["m4"]))
        let result = Reconciliation.apply(state, request: Night.request(state, day: 7, messages: ["m9"]),
                                          answer: NightAnswer(newItems: [NewItem(Night.event("Old match", day: 6, ["m9"]))]))
        #expect(Night.view(result.state, day: 7).events.map(\.title) == ["Fair"])
        #expect(Night.view(result.state, day: 7).deadlines.isEmpty)
        #expect(Night.view(result.state, day: 7).rsvps.isEmpty)
        #expect(result.state.items.count == 4, "an item already past is not added")
        #expect(result.changes.count == 3)
        #expect(result.changes.allSatisfy { if case .closed(.lapsed, _) = $0.kind { true } else { false } })
    }

    @Test func refsAreNeverReusedAndStoredRefsAreKept() {
        let state = Night.state(Night.event("Game", day: 12, ["m1"]))
        let closed = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m2"]),
                                          answer: NightAnswer(verdicts: [Verdict(ref: "e1", .cancelled)])).state
        let stored = ConversationState(items: closed.items + [TrackedItem(ref: "e7", body: Night.event("Fair", day: 20, ["m3"]))])
        let result = Reconciliation.apply(stored, request: Night.request(stored, day: 5, messages: ["m4"]),
                                          answer: NightAnswer(newItems: [NewItem(Night.event("Concert", day: 21, ["m4"]))]))
        #expect(result.changes == [ItemChange(ref: "e8", .added)])
    }

    @Test func theOpenItemsBlockIsCompactAndListsOnlyOpenItems() {
        var state = Night.state(Night.event("Emma's party", day: 12, ["m1"]), Night.deadline("Slip", day: 11, ["m2"]))
        state = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m3"]),
                                     answer: NightAnswer(verdicts: [Verdict(ref: "t1", .cancelled)])).state
        #expect(state.openItemsBlock() == "e1 event \"Emma's party\" 2026-12-12 14:00 @\"Jump Zone\"")
    }

    @Test func aPriorityItemCarriesItsReasonSinceItsMessageMayBeGone() {
        let reason = "Slip and $15 due Friday"
        let state = Night.state(.priority(PriorityItem(messageID: "m1", priority: "high", reason: reason, actionRequired: true)))
        let aliased = ConversationState.openItemsBlock(state.openItems, participant: { _ in nil }, message: { $0 == "m1" ? "m1" : nil })
        #expect(aliased == "p1 priority \"\(reason)\" m1 high", "\(aliased)")
        let gone = ConversationState.openItemsBlock(state.openItems, participant: { _ in nil }, message: { _ in nil })
        #expect(gone == "p1 priority \"\(reason)\" high", "the message out of the window: the reason still says what it was")
    }
}

@Suite("Reconciliation: re-opened")
struct ReconciliationReopenTests {
    @Test func aDeadlineMetForHerIsDueAgainOnlyWhenAMessageOfTheNightSaysSo() {
        var state = Night.state(Night.deadline("Bring togs and a towel", day: 12, ["m1"]))
        state = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m5"]),
                                     answer: NightAnswer(verdicts: [Verdict(ref: "t1", .met(for: ["ana"]))])).state
        #expect(Night.view(state, day: 4).deadlines.isEmpty)
        let unbacked = Reconciliation.apply(state, request: Night.request(state, day: 5, messages: ["m6"]),
                                            answer: NightAnswer(verdicts: [Verdict(ref: "t1", .reopened(for: ["ana"]))]))
        #expect(unbacked.refusals.map(\.kind) == [.notCitedInRequest])
        #expect(Night.view(unbacked.state, day: 5).deadlines.isEmpty)
        let moved = Night.deadline("Bring togs and a towel", day: 13, ["m1", "m6"])
        let result = Reconciliation.apply(state, request: Night.request(state, day: 5, messages: ["m6"]), answer: NightAnswer(verdicts: [
            Verdict(ref: "t1", .changed(moved)), Verdict(ref: "t1", .reopened(for: ["ana", "jen"]), evidence: ["m6"]),
        ]))
        #expect(result.refusals.isEmpty)
        #expect(result.changes == [ItemChange(ref: "t1", .updated), ItemChange(ref: "t1", .reopened(for: ["ana"]))])
        #expect(Night.view(result.state, day: 5).deadlines.map(\.deadline) == [Night.date(13)])
    }
}

@Suite("Reconciliation: restatements")
struct ReconciliationRestatementTests {
    /// Today's model re-reads the context and restates items as new: a stale copy fills gaps, never takes back a
    /// change, and never brings back what the chat closed.
    @Test func aStaleCopyFillsWhatTheItemLacksAndNeverTakesBackAChange() {
        var state = Night.state(Night.event("Emma's party", day: 12, time: nil, place: nil, ["m1"]),
                                Night.rsvp("Emma's party", day: 12, ["m1"]), Night.event("Game", day: 14, ["m3"]))
        state = Reconciliation.apply(state, request: Night.request(state, day: 4, messages: ["m2", "m4"]), answer: NightAnswer(verdicts: [
            Verdict(ref: "r1", .changed(Night.rsvp("Emma's party", day: 12, ["m1", "m2"], answers: [("ana", "yes", "m2")]))),
            Verdict(ref: "e2", .cancelled, evidence: ["m4"]),
        ])).state
        let stale = NightAnswer(newItems: [
            NewItem(Night.event("Emma's party", day: 12, time: "14:00", place: "Jump Zone", ["m1"])),
            NewItem(Night.rsvp("Emma's party", day: 12, ["m1"], answers: [("ana", "no", "m1"), ("dan", "yes", "m1")])),
            NewItem(Night.event("Game", day: 14, ["m3"])),
        ])
        let result = Reconciliation.apply(state, request: Night.request(state, day: 5, messages: ["m1", "m2", "m3", "m4", "m5"]), answer: stale)
        #expect(result.refusals.map(\.kind) == [.restatesClosed], "the cancelled game is not brought back")
        let shown = Night.view(result.state, day: 5)
        #expect(shown.events.map(\.title) == ["Emma's party"])
        #expect(shown.events.first?.time == LocalTime(iso: "14:00") && shown.events.first?.location == "Jump Zone", "gaps filled")
        #expect(shown.rsvps.first?.response(of: "ana")?.response == "yes", "her answer is not taken back")
        #expect(shown.rsvps.first?.response(of: "dan")?.response == "yes", "an answer it lacked is added")
    }

    /// A new message that mentions an item again without its time or place ("don't forget Emma's party Saturday!")
    /// updates it and keeps what it leaves out; one that names a new time and place moves it.
    @Test func aReMentionWithoutATimeOrPlaceKeepsThemAndANewOneMovesIt() {
        let state = Night.state(Night.event("Emma's party", day: 12, time: "14:00", place: "Jump Zone", ["m1"]),
                                Night.rsvp("Emma's party", day: 12, ["m1"]))
        let reminder = NightAnswer(newItems: [NewItem(Night.event("Emma's party", day: 12, time: nil, place: nil, ["m30"]))])
        let reminded = Reconciliation.apply(state, request: Night.request(state, day: 6, messages: ["m30"]), answer: reminder)
        #expect(reminded.refusals.isEmpty, "\(reminded.refusals)")
        let event = Night.view(reminded.state, day: 6).events.first
        #expect(event?.time == LocalTime(iso: "14:00") && event?.location == "Jump Zone", "the re-mention took nothing away")
        #expect(event?.sources == ["m1", "m30"])

        let moved = NightAnswer(newItems: [NewItem(Night.event("Emma's party", day: 12, time: "16:00", place: "Skate Park", ["m1", "m31"]))])
        let result = Reconciliation.apply(reminded.state, request: Night.request(reminded.state, day: 7, messages: ["m31"]), answer: moved)
        let now = Night.view(result.state, day: 7).events
        #expect(now.count == 1 && now.first?.time == LocalTime(iso: "16:00") && now.first?.location == "Skate Park")
    }
}
