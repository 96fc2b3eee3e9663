package import Core

/// One item of any parent feature, as the reconciliation carries it across nights: the feature's own item type.
package enum ItemBody: Sendable, Hashable {
    case event(EventItem)
    case decision(DecisionItem)
    case rsvp(RSVPItem)
    case deadline(DeadlineItem)
    case priority(PriorityItem)

    package var feature: ExtractionFeature {
        switch self {
        case .event: .calendarEvents
        case .decision: .decisions
        case .rsvp: .rsvps
        case .deadline: .deadlines
        case .priority: .priorityMessages
        }
    }

    /// The letter of the feature's short refs (`e1`, `c1`, `r1`, `t1`, `p1`; see docs/over-nights.md).
    var refLetter: String {
        switch self {
        case .event: "e"
        case .decision: "c"
        case .rsvp: "r"
        case .deadline: "t"
        case .priority: "p"
        }
    }

    /// The messages the item rests on (a priority message: the message itself).
    package var sources: [String] {
        switch self {
        case .event(let item): item.sources
        case .decision(let item): item.sources
        case .rsvp(let item): item.sources
        case .deadline(let item): item.sources
        case .priority(let item): [item.messageID]
        }
    }

    /// The date that places the item: before today it is no longer shown.
    package var keyDate: LocalDate? {
        switch self {
        case .event(let item): item.date
        case .decision(let item): item.deadline
        case .rsvp(let item): item.eventDate
        case .deadline(let item): item.deadline
        case .priority: nil
        }
    }

    /// The time of day that places it, where it has one: a change of it is a move.
    var keyTime: LocalTime? {
        switch self {
        case .event(let item): item.time
        case .deadline(let item): item.time
        case .decision, .rsvp, .priority: nil
        }
    }

    /// The words that name the item, for telling a re-mention from another item.
    var words: String {
        switch self {
        case .event(let item): item.title
        case .decision(let item): item.decision
        case .rsvp(let item): item.event
        case .deadline(let item): item.task
        case .priority: ""
        }
    }

    /// The same item resting on `sources` instead.
    func with(sources: [String]) -> ItemBody {
        switch self {
        case .event(var item): item.sources = sources; return .event(item)
        case .decision(var item): item.sources = sources; return .decision(item)
        case .rsvp(var item): item.sources = sources; return .rsvp(item)
        case .deadline(var item): item.sources = sources; return .deadline(item)
        case .priority: return self
        }
    }

    /// The same item with what it leaves out taken from `known`, an item of the same feature it updates: a re-mention
    /// ("don't forget Emma's party Saturday!") that names no time or place keeps the known one's, as a `changed` verdict's
    /// null fields do. A time, place, reply-by date or host it names replaces the known one's.
    func keeping(_ known: ItemBody) -> ItemBody {
        switch (self, known) {
        case (.event(var new), .event(let old)):
            (new.time, new.endTime, new.location) = (new.time ?? old.time, new.endTime ?? old.endTime, new.location ?? old.location)
            return .event(new)
        case (.deadline(var new), .deadline(let old)):
            (new.time, new.details) = (new.time ?? old.time, new.details ?? old.details)
            return .deadline(new)
        case (.rsvp(var new), .rsvp(let old)):
            (new.deadline, new.requestedBy) = (new.deadline ?? old.deadline, new.requestedBy ?? old.requestedBy)
            return .rsvp(new)
        default:
            // A decision's null decided_by is the whole group and its null date a recurring arrangement: both are said.
            return self
        }
    }

    /// Every item of the shipping features in `extraction`, in feature order.
    package static func all(in extraction: Extraction) -> [ItemBody] {
        extraction.events.map(ItemBody.event) + extraction.decisions.map(ItemBody.decision)
            + extraction.priorities.map(ItemBody.priority) + extraction.rsvps.map(ItemBody.rsvp)
            + extraction.deadlines.map(ItemBody.deadline)
    }
}

extension Extraction {
    /// An extraction holding `bodies`, each in its feature's list, in the order given.
    package init(_ bodies: [ItemBody]) {
        self.init()
        for body in bodies {
            switch body {
            case .event(let item): events.append(item)
            case .decision(let item): decisions.append(item)
            case .rsvp(let item): rsvps.append(item)
            case .deadline(let item): deadlines.append(item)
            case .priority(let item): priorities.append(item)
            }
        }
    }
}
