import Core
@testable import Extractors

/// Hand-made fixture and item builders for scorer tests.
enum Make {
    static func date(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }
    static func time(_ iso: String) -> LocalTime { LocalTime(iso: iso)! }

    static func event(_ day: String, _ source: [String], time: String? = nil, location: String? = nil,
                      category: EventCategory = .school) -> ScoredEvent {
        ScoredEvent(title: "event", date: date(day), time: time.map(Make.time), location: location,
                          category: category, source: source)
    }

    static func decision(_ source: [String], category: DecisionCategory = .food) -> ScoredDecision {
        ScoredDecision(decision: "decision", category: category, source: source)
    }

    static func priority(_ message: String, _ level: PriorityLevel = .urgent, action: Bool = true) -> ScoredPriorityMessage {
        ScoredPriorityMessage(message: message, priority: level, actionRequired: action)
    }

    static func rsvp(_ day: String, _ source: [String], status: RSVPStatus = .pending,
                     response: RSVPResponse? = nil) -> ScoredRSVP {
        ScoredRSVP(event: "party", eventDate: date(day), deadline: nil, requestedBy: "dan", source: source,
                 status: status, response: response)
    }

    static func deadline(_ day: String, _ source: [String], category: DeadlineCategory = .school) -> ScoredDeadline {
        ScoredDeadline(task: "task", deadline: date(day), category: category, source: source)
    }

    static func fixture(_ id: String, expected: ExtractionSet) -> Fixture {
        let now = Timestamp(iso: "2026-03-02T20:00:00-05:00")!
        let messages = (1...9).map { i in
            FixtureMessage(id: "m\(i)", sender: "dan", sentAt: Timestamp(iso: "2026-03-02T08:0\(i):00-05:00")!, text: "message \(i)")
        }
        return Fixture(id: id, description: "hand-made", reference: FixtureReference(now: now, timezone: "America/New_York", user: "maria"),
                       participants: [FixtureParticipant(id: "maria", name: "Maria"), FixtureParticipant(id: "dan", name: "Dan")],
                       messages: messages, expected: expected)
    }

    /// One item per feature except two events, each with a known source and date.
    static let standardExpected = ExtractionSet(
        [event("2026-03-07", ["m1"], time: "11:00", location: "Riverside Park"),
         event("2026-03-09", ["m2", "m3"])],
        [decision(["m4", "m5"])],
        [priority("m3")],
        [rsvp("2026-03-07", ["m1"])],
        [deadline("2026-03-06", ["m2"])])
}
