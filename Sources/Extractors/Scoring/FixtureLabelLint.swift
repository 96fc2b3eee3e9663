import Core
import Foundation

/// The parts of FEATURES.md (the product's definition of each feature) that a label can be checked against without
/// reading the chat: a wrong label here would teach the scorer to reward what the product must not show.
enum FixtureLabelLint {
    static let maxSources = 5

    static func findings(in fixture: Fixture) -> [FixtureChecks.Finding] {
        var out: [FixtureChecks.Finding] = []
        let user = fixture.reference.user
        let senders = Dictionary(fixture.messages.map { ($0.id, $0.sender) }, uniquingKeysWith: { first, _ in first })
        let today = TimeZone(identifier: fixture.reference.timezone).map { LocalDate(fixture.reference.now.date, in: $0) }
        let expected = fixture.expected
        func path(_ feature: ExtractionFeature, _ index: Int, _ field: String) -> [JSONPathComponent] {
            [.key("expected"), .key(feature.rawValue), .index(index), .key(field)]
        }

        for (i, item) in expected.priorityMessages.enumerated() {
            if senders[item.message] == user {
                out.append((path(.priorityMessages, i, "message"), "'\(item.message)' is sent by the reference user '\(user)': a priority message is never the parent's own"))
            }
            if item.priority == .medium {
                out.append((path(.priorityMessages, i, "priority"), "medium is not used for flagging: an informative message is not a priority message"))
            }
        }
        for (i, rsvp) in expected.rsvps.enumerated() {
            if rsvp.requestedBy == user {
                out.append((path(.rsvps, i, "requested_by"), "an invitation the reference user '\(user)' sent herself is not an RSVP"))
            }
            guard let replyBy = rsvp.deadline else { continue }
            for (j, deadline) in expected.deadlines.enumerated()
            where deadline.deadline == replyBy && !Set(deadline.source).isDisjoint(with: rsvp.source) {
                out.append((path(.deadlines, j, "deadline"), "\(replyBy.iso) is the reply-by date of rsvps[\(i)]: it lives in the RSVP only, never also as a deadline"))
            }
        }
        // The response schemas cite at most five messages per item; a label citing more could never be matched as written.
        let cited: [(ExtractionFeature, [[String]])] = [
            (.calendarEvents, expected.calendarEvents.map(\.source)), (.decisions, expected.decisions.map(\.source)),
            (.rsvps, expected.rsvps.map(\.source)), (.deadlines, expected.deadlines.map(\.source)),
        ]
        for (feature, sources) in cited {
            for (i, source) in sources.enumerated() where source.count > maxSources {
                out.append((path(feature, i, "source"), "\(source.count) messages cited: an item cites at most \(maxSources) (the response schema's cap)"))
            }
        }
        if let today {
            for (i, event) in expected.calendarEvents.enumerated() where event.date < today {
                out.append((path(.calendarEvents, i, "date"), "\(event.date.iso) is before the reference day \(today.iso): past events are not shown"))
            }
            for (i, deadline) in expected.deadlines.enumerated() where deadline.deadline < today {
                out.append((path(.deadlines, i, "deadline"), "\(deadline.deadline.iso) is before the reference day \(today.iso): past due dates are not shown"))
            }
        }
        return out
    }
}
