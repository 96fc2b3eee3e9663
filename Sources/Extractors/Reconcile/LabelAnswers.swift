import Core

/// `--provider labels`: a night's answer written from a fixture's own labels, as a perfect model would answer the
/// request (docs/over-nights.md, "Eval over nights"). Each label of the night is paired with the open item it is (a
/// shared message; a priority message by its message): equal, it stands; otherwise `changed`. A label with no open
/// item is new; one met for the user that the night shows again is `reopened` for her. An open item the night no longer shows is `cancelled`, or for a deadline or a high priority `met` for
/// the reference user, for an urgent priority `ended`; unless its date has passed, which the reconciliation lapses itself.
package enum LabelAnswers {
    package static func answer(_ state: ConversationState, request: NightRequest, expected: ExtractionSet,
                               user: String) -> NightAnswer {
        let labels = expected.calendarEvents.map { event($0) } + expected.decisions.map { decision($0) }
            + expected.priorityMessages.map { priority($0) } + expected.rsvps.map { rsvp($0, user: user) }
            + expected.deadlines.map { deadline($0) }
        var open = state.openItems.filter { request.shownRefs.contains($0.ref) }
        var answer = NightAnswer()
        for label in labels {
            guard let index = partner(label, in: open) else {
                answer.newItems.append(NewItem(label))
                continue
            }
            let item = open.remove(at: index)
            let now = filled(label, from: item.body)
            if now.with(sources: []) != item.body.with(sources: []) {
                answer.verdicts.append(Verdict(ref: item.ref, .changed(now)))
            }
            if item.metFor.contains(user) {
                let evidence = label.sources.filter(request.shownMessages.contains)
                answer.verdicts.append(Verdict(ref: item.ref, .reopened(for: [user]), evidence: evidence))
            }
        }
        let today = request.today
        for item in open where !item.metFor.contains(user) {
            let past = (item.body.keyDate.map { $0 < today } ?? false) || (item.until.map { $0 < today } ?? false)
            guard !past else { continue }
            switch item.body {
            case .deadline: answer.verdicts.append(Verdict(ref: item.ref, .met(for: [user])))
            case .priority(let p) where p.priority == PriorityLevel.urgent.rawValue: answer.verdicts.append(Verdict(ref: item.ref, .ended))
            case .priority: answer.verdicts.append(Verdict(ref: item.ref, .met(for: [user])))
            case .event, .decision, .rsvp: answer.verdicts.append(Verdict(ref: item.ref, .cancelled))
            }
        }
        return answer
    }

    /// The open item `label` is: same feature and message for a priority; otherwise a shared message, the one of the
    /// same date first, then the one sharing most messages.
    static func partner(_ label: ItemBody, in open: [TrackedItem]) -> Int? {
        open.indices.filter { index in
            let body = open[index].body
            guard body.feature == label.feature else { return false }
            if case .priority(let a) = label, case .priority(let b) = body { return a.messageID == b.messageID }
            return !Set(body.sources).isDisjoint(with: label.sources)
        }.max { a, b in
            func rank(_ i: Int) -> (Int, Int) {
                let body = open[i].body
                return (body.keyDate == label.keyDate ? 1 : 0, Set(body.sources).intersection(label.sources).count)
            }
            return rank(a) < rank(b)
        }
    }

    /// `label` with the fields a label does not hold taken from the item it updates (an event's description, other
    /// participants' RSVP answers, a deadline's priority).
    static func filled(_ label: ItemBody, from old: ItemBody) -> ItemBody {
        switch (label, old) {
        case (.event(var new), .event(let item)):
            (new.endTime, new.description, new.confidence) = (item.endTime, item.description, item.confidence)
            return .event(new)
        case (.decision(var new), .decision(let item)):
            (new.decidedBy, new.deadline) = (item.decidedBy, item.deadline)
            return .decision(new)
        case (.rsvp(var new), .rsvp(let item)):
            let mine = Set(new.responses.map(\.participantID))
            new.responses = item.responses.filter { !mine.contains($0.participantID) } + new.responses
            return .rsvp(new)
        case (.deadline(var new), .deadline(let item)):
            (new.time, new.priority, new.details) = (item.time, item.priority, item.details)
            return .deadline(new)
        case (.priority(var new), .priority(let item)):
            new.reason = item.reason
            return .priority(new)
        default:
            return label
        }
    }

    static func event(_ label: ScoredEvent) -> ItemBody {
        .event(EventItem(title: label.title, date: label.date, time: label.time, endTime: nil, location: label.location,
                         description: "", category: label.category, confidence: 1, datePhrase: nil, modelDate: nil,
                         sources: label.source))
    }

    static func decision(_ label: ScoredDecision) -> ItemBody {
        .decision(DecisionItem(decision: label.decision, category: label.category, decidedBy: nil, deadline: nil,
                               datePhrase: nil, modelDate: nil, sources: label.source))
    }

    static func priority(_ label: ScoredPriorityMessage) -> ItemBody {
        .priority(PriorityItem(messageID: label.message, priority: label.priority.rawValue, reason: "labelled",
                               actionRequired: label.actionRequired))
    }

    /// The reference user's answer, if the label has one, cited to the label's latest message.
    static func rsvp(_ label: ScoredRSVP, user: String) -> ItemBody {
        let responses = label.status == .responded ? label.response.map {
            [RSVPReply(participantID: user, response: $0.rawValue, messageID: label.source.last ?? "")]
        } ?? [] : []
        return .rsvp(RSVPItem(event: label.event, eventDate: label.eventDate, deadline: label.deadline, requestedBy: label.requestedBy,
                              datePhrase: nil, modelDate: nil, sources: label.source, responses: responses))
    }

    static func deadline(_ label: ScoredDeadline) -> ItemBody {
        .deadline(DeadlineItem(task: label.task, deadline: label.deadline, time: nil, category: label.category, priority: "medium",
                               details: nil, datePhrase: nil, modelDate: nil, sources: label.source))
    }
}
