import FeatureKit
import Foundation
import YAMLKit

/// Consistency rules a schema cannot express: ids refer to things that exist, the time zone is real,
/// the fixture is named after its file.
enum FixtureChecks {
    typealias Finding = (path: [JSONPathComponent], message: String)

    static func findings(in fixture: Fixture, fileStem: String) -> [Finding] {
        var out: [Finding] = []
        if fixture.id != fileStem {
            out.append(([.key("id")], "'\(fixture.id)' must equal the file name '\(fileStem)'"))
        }
        if TimeZone(identifier: fixture.reference.timezone) == nil {
            out.append(([.key("reference"), .key("timezone")], "'\(fixture.reference.timezone)' is not a known time zone"))
        }

        var participants: [String: Int] = [:]
        for (i, p) in fixture.participants.enumerated() {
            if let first = participants[p.id] {
                out.append(([.key("participants"), .index(i), .key("id")], "duplicate participant id '\(p.id)' (first at participants[\(first)])"))
            } else {
                participants[p.id] = i
            }
        }
        if participants[fixture.reference.user] == nil {
            out.append(([.key("reference"), .key("user")], "'\(fixture.reference.user)' is not a participant"))
        }

        var messages: [String: Int] = [:]
        for (i, m) in fixture.messages.enumerated() {
            if let first = messages[m.id] {
                out.append(([.key("messages"), .index(i), .key("id")], "duplicate message id '\(m.id)' (first at messages[\(first)])"))
            } else {
                messages[m.id] = i
            }
            if participants[m.sender] == nil {
                out.append(([.key("messages"), .index(i), .key("sender")], "'\(m.sender)' is not a participant"))
            }
        }

        func checkSources(_ feature: ExtractionFeature, _ index: Int, _ ids: [String]) {
            for (j, id) in ids.enumerated() where messages[id] == nil {
                out.append(([.key("expected"), .key(feature.rawValue), .index(index), .key("source"), .index(j)],
                            "'\(id)' is not a message id"))
            }
        }
        let expected = fixture.expected
        for (i, item) in expected.calendarEvents.enumerated() { checkSources(.calendarEvents, i, item.source) }
        for (i, item) in expected.decisions.enumerated() { checkSources(.decisions, i, item.source) }
        for (i, item) in expected.deadlines.enumerated() { checkSources(.deadlines, i, item.source) }
        for (i, item) in expected.priorityMessages.enumerated() where messages[item.message] == nil {
            out.append(([.key("expected"), .key(ExtractionFeature.priorityMessages.rawValue), .index(i), .key("message")],
                        "'\(item.message)' is not a message id"))
        }
        for (i, item) in expected.rsvps.enumerated() {
            checkSources(.rsvps, i, item.source)
            if participants[item.requestedBy] == nil {
                out.append(([.key("expected"), .key(ExtractionFeature.rsvps.rawValue), .index(i), .key("requested_by")],
                            "'\(item.requestedBy)' is not a participant"))
            }
        }
        return out
    }
}
