import Foundation
import Core

/// Consistency rules a schema cannot express: ids refer to things that exist, the time zone is real,
/// the fixture is named after its file, and the labels keep the rules of FEATURES.md that need no reading of the chat
/// (`FixtureLabelLint`).
enum FixtureChecks {
    typealias Finding = (path: [JSONPathComponent], message: String)

    static func findings(in fixture: Fixture, fileStem: String, scoring: ScoringRegistry = .parents) -> [Finding] {
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

        // Every id a label names, in each scored feature's own places (`ScoredItem`).
        for feature in scoring.features {
            for (i, item) in feature.references(in: fixture.expected).enumerated() {
                let base: [JSONPathComponent] = [.key("expected"), .key(feature.id.rawValue), .index(i)]
                for (path, id) in item.messages where messages[id] == nil {
                    out.append((base + path, "'\(id)' is not a message id"))
                }
                for (path, id) in item.participants where participants[id] == nil {
                    out.append((base + path, "'\(id)' is not a participant"))
                }
            }
        }
        return out + FixtureLabelLint.findings(in: fixture)
    }
}
