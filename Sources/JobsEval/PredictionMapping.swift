import Evals
import Extractors

/// Maps what the extractors found to the scorer's item shapes, from the point of view of one user.
///
/// Category strings outside the closed vocabularies cannot pass schema validation, but a mapping must not
/// crash on them: they become `other` (and an unknown priority becomes `medium`, the lowest level scored).
public enum PredictionMapping {
    /// `user` is the fixture's `reference.user`: RSVP status and response are theirs.
    public static func predicted(_ extraction: Extraction, user: String) -> PredictedItems {
        PredictedItems(
            calendarEvents: extraction.events.map(event),
            decisions: extraction.decisions.map(decision),
            priorityMessages: extraction.priorities.map(priority),
            rsvps: extraction.rsvps.map { rsvp($0, user: user) },
            deadlines: extraction.deadlines.map(deadline))
    }

    static func event(_ item: EventItem) -> ScoredEvent {
        ScoredEvent(title: item.title, date: item.date, time: item.time, location: item.location,
                          category: item.category, source: item.sources)
    }

    static func decision(_ item: Extractors.DecisionItem) -> ScoredDecision {
        ScoredDecision(decision: item.decision, category: item.category, source: item.sources)
    }

    static func priority(_ item: PriorityItem) -> ScoredPriorityMessage {
        ScoredPriorityMessage(message: item.messageID, priority: PriorityLevel(rawValue: item.priority) ?? .medium,
                            actionRequired: item.actionRequired)
    }

    static func rsvp(_ item: Extractors.RSVPItem, user: String) -> ScoredRSVP {
        let answer = item.response(of: user)
        return ScoredRSVP(
            event: item.event, eventDate: item.eventDate, deadline: item.deadline, requestedBy: item.requestedBy ?? "",
            source: item.sources, status: answer == nil ? .pending : .responded,
            response: answer.flatMap { Evals.RSVPResponse(rawValue: $0.response) })
    }

    static func deadline(_ item: Extractors.DeadlineItem) -> ScoredDeadline {
        ScoredDeadline(task: item.task, deadline: item.deadline, category: item.category,
                           source: item.sources)
    }
}
