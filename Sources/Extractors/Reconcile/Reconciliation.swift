import Core

/// The one reconciliation of a night (docs/over-nights.md): what is stored, the night's request and its answer in;
/// the new state, its changes and the refused parts of the answer out. Pure: `eval` and the store run the same code.
package enum Reconciliation {
    /// The most messages an item rests on (the response schema's cap): its first, then the latest.
    static let maxSources = 5

    package static func apply(_ stored: ConversationState, request: NightRequest, answer: NightAnswer) -> ReconciliationResult {
        var run = Run(state: stored, request: request)
        var judged: Set<String> = []
        for verdict in answer.verdicts {
            // `reopened` may come beside one other verdict on its item (re-opened and moved); nothing else may repeat.
            let key = if case .reopened = verdict.kind { verdict.ref + " reopened" } else { verdict.ref }
            guard judged.insert(key).inserted else {
                run.refuse(.repeatedVerdict, verdict.ref, "a second verdict on one item in one answer")
                continue
            }
            run.judge(verdict)
        }
        for item in answer.newItems { run.add(item) }
        dropDeleted(request.deletedMessages, from: &run.state, changes: &run.changes)
        run.metByAnswering()
        run.lapse()
        return ReconciliationResult(state: run.state, changes: run.changes, refusals: run.refusals)
    }

    /// One application in progress.
    private struct Run {
        var state: ConversationState
        let request: NightRequest
        /// The refs stored before this answer: a new item is matched against those only. Two new items of one answer
        /// are two items (the decode step already merged a model's repeats within a night, `ItemIdentity`).
        let stored: Set<String>
        var changes: [ItemChange] = []
        var refusals: [Refusal] = []

        init(state: ConversationState, request: NightRequest) {
            self.state = state
            self.request = request
            self.stored = Set(state.items.map(\.ref))
        }

        mutating func refuse(_ kind: Refusal.Kind, _ subject: String, _ detail: String) {
            refusals.append(Refusal(kind: kind, subject: subject, detail: detail))
        }

        mutating func judge(_ verdict: Verdict) {
            let ref = verdict.ref
            guard let item = state[ref] else { return refuse(.unknownRef, ref, "no such item in this conversation") }
            if item.closedInApp { return refuse(.reopensParentClosed, ref, "the parent closed it in the app") }
            guard item.isOpen, request.shownRefs.contains(ref) else {
                return refuse(.notShown, ref, "the request did not show it (it is \(item.status.rawValue))")
            }
            if !verdict.evidence.isEmpty, request.shownMessages.isDisjoint(with: verdict.evidence) {
                return refuse(.notCitedInRequest, ref, "its evidence cites no message of this request")
            }
            switch verdict.kind {
            case .changed(let body):
                change(item, to: body)
            case .cancelled:
                close(item, .cancelled)
            case .ended:
                guard case .priority = item.body else { return refuse(.wrongFeature, ref, "only a priority message ends") }
                close(item, .ended)
            case .met(let people):
                switch item.body {
                case .deadline, .priority: break
                default: return refuse(.wrongFeature, ref, "only a deadline or a priority message is met")
                }
                let unknown = request.participants.isEmpty ? [] : people.subtracting(request.participants)
                guard unknown.isEmpty else {
                    return refuse(.unknownParticipant, ref, "met for \(unknown.sorted().joined(separator: ", ")): not a participant")
                }
                meet(item.ref, people)
            case .reopened(let people):
                guard !verdict.evidence.isEmpty else {
                    return refuse(.notCitedInRequest, ref, "re-opened for \(people.sorted().joined(separator: ", ")) citing no message")
                }
                let reopened = people.intersection(item.metFor)
                guard !reopened.isEmpty else { return }
                state.update(ref) { $0.metFor.subtract(reopened) }
                changes.append(ItemChange(ref: ref, .reopened(for: reopened)))
            }
        }

        /// `item` as `body` now says, if its messages back a move; sources merged, RSVP answers merged per participant.
        mutating func change(_ item: TrackedItem, to body: ItemBody) {
            guard body.feature == item.body.feature else {
                return refuse(.wrongFeature, item.ref, "changed into a \(body.feature.rawValue) item")
            }
            if case .priority(let new) = body, case .priority(let old) = item.body, new.messageID != old.messageID {
                return refuse(.wrongFeature, item.ref, "a priority message cannot become another message")
            }
            let moved = body.keyDate != item.body.keyDate || body.keyTime != item.body.keyTime
            let fresh = Set(body.sources).subtracting(item.body.sources).intersection(request.shownMessages)
            if moved, fresh.isEmpty {
                return refuse(.unbackedMove, item.ref, "moved to \(body.keyDate?.iso ?? "no date") \(body.keyTime?.iso ?? "") "
                              + "citing no message of this request it did not already rest on")
            }
            var merged = body.with(sources: Self.mergedSources(item.body.sources, body.sources))
            if case .rsvp(var new) = merged, case .rsvp(let old) = item.body {
                new.responses = Self.mergedResponses(old.responses, new.responses)
                merged = .rsvp(new)
            }
            guard merged != item.body else { return }
            state.update(item.ref) { $0.body = merged }
            changes.append(ItemChange(ref: item.ref, .updated))
        }

        /// What a restatement may add to an item: the fields it lacks (a time, a place, a detail) and answers of
        /// participants it has none of.
        mutating func fill(_ item: TrackedItem, from body: ItemBody) {
            var filled = item.body
            switch (item.body, body) {
            case (.event(var old), .event(let new)):
                (old.time, old.endTime, old.location) = (old.time ?? new.time, old.endTime ?? new.endTime, old.location ?? new.location)
                filled = .event(old)
            case (.deadline(var old), .deadline(let new)):
                (old.time, old.details) = (old.time ?? new.time, old.details ?? new.details)
                filled = .deadline(old)
            case (.rsvp(var old), .rsvp(let new)):
                let answered = Set(old.responses.map(\.participantID))
                old.responses += new.responses.filter { !answered.contains($0.participantID) }
                filled = .rsvp(old)
            default:
                break
            }
            guard filled != item.body else { return }
            state.update(item.ref) { $0.body = filled }
            changes.append(ItemChange(ref: item.ref, .updated))
        }

        mutating func close(_ item: TrackedItem, _ status: ItemStatus) {
            state.update(item.ref) { $0.status = status }
            changes.append(ItemChange(ref: item.ref, .closed(status, removesRow: item.closingRemovesRow)))
        }

        mutating func meet(_ ref: String, _ people: Set<String>) {
            guard let item = state[ref] else { return }
            let added = people.subtracting(item.metFor)
            guard !added.isEmpty else { return }
            state.update(ref) { $0.metFor.formUnion(added) }
            changes.append(ItemChange(ref: ref, .met(for: added)))
        }

        /// A new item: the same as a tracked one updates it; otherwise it is added under a new ref.
        mutating func add(_ new: NewItem) {
            let body = new.body
            let subject = "\(body.feature.rawValue) citing \(body.sources.first ?? "nothing")"
            guard !request.shownMessages.isDisjoint(with: body.sources) else {
                return refuse(.notCitedInRequest, subject, "cites no message of this request")
            }
            let earlier = state.items.filter { stored.contains($0.ref) }
            if let closed = earlier.first(where: { $0.closedInApp && ItemMatching.same(body, $0.body) }) {
                return refuse(.reopensParentClosed, subject, "the same item as \(closed.ref), which the parent closed in the app")
            }
            // A restatement (no message the item did not already rest on) only fills what the item lacks: a stale copy
            // of an item, from a model re-reading the context, never takes back a change.
            func fresh(_ item: TrackedItem) -> Bool {
                !Set(body.sources).subtracting(item.body.sources).isDisjoint(with: request.shownMessages)
            }
            if let known = ItemMatching.best(body, among: earlier.filter(\.isOpen)) {
                if let until = new.until, known.until != until { state.update(known.ref) { $0.until = until } }
                return fresh(known) ? change(known, to: body.keeping(known.body)) : fill(known, from: body)
            }
            if let closed = ItemMatching.best(body, among: earlier.filter { !$0.isOpen }), !fresh(closed) {
                return refuse(.restatesClosed, subject, "the same as \(closed.ref), which is \(closed.status.rawValue), with no new message")
            }
            // A message flagged before stays the one item of that message, closed or not.
            if case .priority = body, earlier.contains(where: { ItemMatching.same(body, $0.body) }) { return }
            if let date = body.keyDate, date < request.today { return }
            if let until = new.until, until < request.today { return }
            changes.append(ItemChange(ref: state.add(body, until: new.until), .added))
        }

        /// Once a participant has answered an invitation, its priority message is met for her.
        mutating func metByAnswering() {
            for item in state.openItems {
                guard case .rsvp(let rsvp) = item.body else { continue }
                let answered = Set(rsvp.responses.map(\.participantID))
                guard !answered.isEmpty else { continue }
                for flagged in state.openItems {
                    guard case .priority(let p) = flagged.body, rsvp.sources.contains(p.messageID) else { continue }
                    meet(flagged.ref, answered)
                }
            }
        }

        /// Closes what is dated before today, and priority messages past their day.
        mutating func lapse() {
            let today = request.today
            for item in state.openItems {
                let past = (item.body.keyDate.map { $0 < today } ?? false) || (item.until.map { $0 < today } ?? false)
                if past { close(item, .lapsed) }
            }
        }

        /// The first source, then the latest ones, at most `maxSources`, without repeats.
        static func mergedSources(_ old: [String], _ new: [String]) -> [String] {
            var seen: Set<String> = []
            let all = (old + new).filter { seen.insert($0).inserted }
            guard all.count > Reconciliation.maxSources else { return all }
            return [all[0]] + all.suffix(Reconciliation.maxSources - 1)
        }

        /// Each participant's latest answer: a new answer replaces her earlier one; others' stay.
        static func mergedResponses(_ old: [RSVPReply], _ new: [RSVPReply]) -> [RSVPReply] {
            var merged = old
            for reply in new {
                merged.removeAll { $0.participantID == reply.participantID }
                merged.append(reply)
            }
            return merged
        }
    }
}
