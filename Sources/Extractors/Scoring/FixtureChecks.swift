import Foundation
import Core

/// Consistency rules a schema cannot express: ids refer to things that exist, the time zone is real,
/// the fixture is named after its file, and the labels keep the rules of FEATURES.md that need no reading of the chat
/// (`FixtureLabelLint`).
enum FixtureChecks {
    typealias Finding = (path: [JSONPathComponent], message: String)

    static func findings(in fixture: Fixture, fileStem: String, scoring: ScoringRegistry = .shipping) -> [Finding] {
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

        // Where each message is written: `messages[i]`, or `nights[n].messages[i]` in a nights fixture.
        let places: [(path: [JSONPathComponent], message: FixtureMessage)] = fixture.nights.map { nights in
            nights.enumerated().flatMap { n, night in
                night.messages.enumerated().map { ([.key("nights"), .index(n), .key("messages"), .index($0.offset)], $0.element) }
            }
        } ?? fixture.messages.enumerated().map { ([.key("messages"), .index($0.offset)], $0.element) }
        var messages: [String: String] = [:]
        for (path, m) in places {
            if let first = messages[m.id] {
                out.append((path + [.key("id")], "duplicate message id '\(m.id)' (first at \(first))"))
            } else {
                messages[m.id] = JSONPath.display(path)
            }
            if participants[m.sender] == nil {
                out.append((path + [.key("sender")], "'\(m.sender)' is not a participant"))
            }
        }
        guard let nights = fixture.nights else {
            return out + labelFindings(fixture, known: Set(messages.keys), participants: Set(participants.keys), scoring: scoring)
                + FixtureLabelLint.findings(in: fixture)
        }
        // Night by night: `now` moves forward, messages are sent by then, labels cite messages of that night or earlier.
        for (n, (night, fixture)) in zip(nights, fixture.nightFixtures).enumerated() {
            let base: [JSONPathComponent] = [.key("nights"), .index(n)]
            if n > 0, night.now.date <= nights[n - 1].now.date {
                out.append((base + [.key("now")], "\(night.now) is not after the previous night's now"))
            }
            for (i, m) in night.messages.enumerated() where m.sentAt.date > night.now.date {
                out.append((base + [.key("messages"), .index(i), .key("sent_at")], "\(m.sentAt) is after this night's now \(night.now)"))
            }
            let known = Set(fixture.messages.map(\.id))
            let found = labelFindings(fixture, known: known, participants: Set(participants.keys), scoring: scoring)
                + FixtureLabelLint.findings(in: fixture)
            out += found.map { (base + $0.path, $0.message) }
        }
        return out
    }

    /// Every id a label names, in each scored feature's own places (`ScoredItem`), must be a message of `known` (of
    /// that night or before, in a nights fixture) and a participant.
    private static func labelFindings(_ fixture: Fixture, known: Set<String>, participants: Set<String>,
                                      scoring: ScoringRegistry) -> [Finding] {
        var out: [Finding] = []
        for feature in scoring.features {
            for (i, item) in feature.references(in: fixture.expected).enumerated() {
                let base: [JSONPathComponent] = [.key("expected"), .key(feature.id.rawValue), .index(i)]
                for (path, id) in item.messages where !known.contains(id) {
                    out.append((base + path, "'\(id)' is not a message id\(fixture.nights == nil && !fixture.id.contains("#") ? "" : " of this night or before")"))
                }
                for (path, id) in item.participants where !participants.contains(id) {
                    out.append((base + path, "'\(id)' is not a participant"))
                }
            }
        }
        return out
    }
}
