@testable import Extractors
import Core
import Foundation

/// Items, requests and states for the reconciliation's tests: a London chat of ana (the parent), jen and dan.
enum Night {
    static let zone = TimeZone(identifier: "Europe/London")!

    /// 21:00 UTC on that December 2026 day (the nightly scan).
    static func at(_ day: Int) -> Date {
        Timestamp(iso: String(format: "2026-12-%02dT21:00:00+00:00", day))!.date
    }

    static func date(_ day: Int) -> LocalDate { LocalDate(iso: String(format: "2026-12-%02d", day))! }

    static func event(_ title: String, day: Int, time: String? = "14:00", place: String? = "Jump Zone",
                      _ sources: [String]) -> ItemBody {
        .event(EventItem(title: title, date: date(day), time: time.flatMap { LocalTime(iso: $0) }, endTime: nil, location: place,
                         description: "", category: .social, confidence: 0.9, datePhrase: nil, modelDate: nil, sources: sources))
    }

    static func decision(_ text: String, _ sources: [String], category: DecisionCategory = .carpool) -> ItemBody {
        .decision(DecisionItem(decision: text, category: category, decidedBy: nil, deadline: nil, datePhrase: nil,
                               modelDate: nil, sources: sources))
    }

    static func deadline(_ task: String, day: Int, _ sources: [String]) -> ItemBody {
        .deadline(DeadlineItem(task: task, deadline: date(day), time: nil, category: .school, priority: "high", details: nil,
                               datePhrase: nil, modelDate: nil, sources: sources))
    }

    static func rsvp(_ event: String, day: Int, _ sources: [String], answers: [(String, String, String)] = []) -> ItemBody {
        .rsvp(RSVPItem(event: event, eventDate: date(day), deadline: nil, requestedBy: "jen", datePhrase: nil, modelDate: nil,
                       sources: sources, responses: answers.map { RSVPReply(participantID: $0.0, response: $0.1, messageID: $0.2) }))
    }

    static func priority(_ message: String, _ level: String = "high") -> ItemBody {
        .priority(PriorityItem(messageID: message, priority: level, reason: "", actionRequired: true))
    }

    /// The request of the night of `day`: every open item shown, these messages carried.
    static func request(_ state: ConversationState, day: Int, messages: [String]) -> NightRequest {
        NightRequest(now: at(day), timeZone: zone, shownRefs: Set(state.openItems.map(\.ref)), shownMessages: Set(messages),
                     participants: ["ana", "jen", "dan"])
    }

    /// A state after one night of these new items (all cited messages carried).
    static func state(day: Int = 3, _ bodies: ItemBody...) -> ConversationState {
        let messages = bodies.flatMap(\.sources)
        return Reconciliation.apply(ConversationState(), request: request(ConversationState(), day: day, messages: messages),
                                    answer: NightAnswer(newItems: bodies.map { NewItem($0) })).state
    }

    /// What ana sees at the night of `day`.
    static func view(_ state: ConversationState, day: Int, user: String = "ana") -> Extraction {
        state.view(for: user, now: at(day), timeZone: zone)
    }
}
