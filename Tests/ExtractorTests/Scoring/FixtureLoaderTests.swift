import Foundation
import Testing
@testable import Extractors
import Core

@Suite("Fixture loader errors")
struct FixtureLoaderTests {
    /// A minimal valid fixture; tests break one thing at a time. Line numbers matter to the assertions.
    static let valid = """
        id: tiny
        description: A minimal fixture.
        reference: {now: "2026-03-02T20:00:00-05:00", timezone: America/New_York, user: maria}
        participants:
          - {id: maria, name: Maria Lopez}
          - {id: dan, name: Dan Kim}
        messages:
          - {id: m1, sender: dan, sent_at: "2026-03-02T08:14:00-05:00", text: "Picnic Saturday at 11, RSVP by Thursday"}
          - {id: m2, sender: maria, sent_at: "2026-03-02T09:00:00-05:00", text: "We'll come"}
        expected:
          calendar_events: [{title: Picnic, date: 2026-03-07, time: "11:00", location: null, category: social, source: [m1]}]
          decisions: []
          priority_messages: []
          rsvps: [{event: Picnic, event_date: 2026-03-07, deadline: 2026-03-05, requested_by: dan, source: [m1, m2], status: responded, response: "yes"}]
          deadlines: []

        """

    private func problems(_ text: String, file: String = "evals/fixtures/tiny.yaml") -> [FileProblem] {
        do {
            _ = try FixtureLoader.parse(text, file: file)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func validFixtureParses() throws {
        let fixture = try FixtureLoader.parse(Self.valid, file: "evals/fixtures/tiny.yaml")
        #expect(fixture.messages.count == 2)
        #expect(fixture.expected.rsvps.first?.response == .yes)
        #expect(fixture.expected.calendarEvents.first?.time?.hour == 11)
    }

    @Test func unknownSenderNamesFileLineAndField() {
        let text = Self.valid.replacingOccurrences(of: "{id: m2, sender: maria", with: "{id: m2, sender: bob")
        let found = problems(text)
        #expect(found.map(\.description) == ["evals/fixtures/tiny.yaml:9: messages[1].sender: 'bob' is not a participant"])
    }

    @Test func impossibleDateIsRejected() {
        let text = Self.valid.replacingOccurrences(of: "date: 2026-03-07, time", with: "date: 2026-02-30, time")
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.file == "evals/fixtures/tiny.yaml")
        #expect(found.first?.line == 11)
        #expect(found.first?.field == "expected.calendar_events[0].date")
    }

    @Test func missingFieldIsRejected() {
        let text = Self.valid.replacingOccurrences(of: "category: social, source: [m1]", with: "source: [m1]")
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.line == 11)
        #expect(found.first?.field == "expected.calendar_events[0]")
        #expect(found.first?.message.contains("category") == true)
    }

    /// A missing list is allowed (the fixture is not labelled for that feature: UnlabelledFeatureTests); a misspelt one
    /// is not, so a typo cannot silently unlabel a feature.
    @Test func misspeltExpectedListIsRejected() {
        let text = Self.valid.replacingOccurrences(of: "  decisions: []\n", with: "  decisons: []\n")
        let found = problems(text)
        #expect(found.map(\.field) == ["expected"])
        #expect(found.first?.message.contains("decisons") == true)
        #expect(problems(Self.valid.replacingOccurrences(of: "  decisions: []\n", with: "")).isEmpty)
    }

    @Test func unknownSourceAndRequesterAreReportedTogether() {
        let text = Self.valid
            .replacingOccurrences(of: "source: [m1, m2]", with: "source: [m1, m9]")
            .replacingOccurrences(of: "requested_by: dan", with: "requested_by: zoe")
        let found = problems(text).map(\.description)
        #expect(found.contains("evals/fixtures/tiny.yaml:14: expected.rsvps[0].source[1]: 'm9' is not a message id"))
        #expect(found.contains("evals/fixtures/tiny.yaml:14: expected.rsvps[0].requested_by: 'zoe' is not a participant"))
    }

    @Test func duplicateMessageIdUnknownZoneAndWrongStem() {
        let text = Self.valid
            .replacingOccurrences(of: "{id: m2, sender", with: "{id: m1, sender")
            .replacingOccurrences(of: "America/New_York", with: "Mars/Olympus")
            .replacingOccurrences(of: "source: [m1, m2]", with: "source: [m1]")
        let found = problems(text, file: "other.yaml").map(\.description)
        #expect(found.contains("other.yaml:1: id: 'tiny' must equal the file name 'other'"))
        #expect(found.contains("other.yaml:3: reference.timezone: 'Mars/Olympus' is not a known time zone"))
        #expect(found.contains("other.yaml:9: messages[1].id: duplicate message id 'm1' (first at messages[0])"))
    }

    @Test func offsetlessTimestampIsRejected() {
        let text = Self.valid.replacingOccurrences(of: "\"2026-03-02T08:14:00-05:00\"", with: "\"2026-03-02T08:14:00\"")
        let found = problems(text)
        #expect(!found.isEmpty)
        #expect(found.allSatisfy { $0.line == 8 && $0.field == "messages[0].sent_at" })
    }

    @Test func unquotedTimeIsStillAString() throws {
        let text = Self.valid.replacingOccurrences(of: "time: \"11:00\"", with: "time: 11:00")
        let fixture = try FixtureLoader.parse(text, file: "evals/fixtures/tiny.yaml")
        #expect(fixture.expected.calendarEvents.first?.time?.iso == "11:00")
    }

    @Test func yamlSyntaxErrorHasALine() {
        let found = problems("id: tiny\nparticipants: [\n  {id: maria\n")
        #expect(found.count == 1)
        #expect(found.first.map { $0.line > 0 } == true)
    }

    @Test func directoryLoadCollectsEveryFilesProblems() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.valid.write(to: dir.appendingPathComponent("tiny.yaml"), atomically: true, encoding: .utf8)
        let badSender = Self.valid.replacingOccurrences(of: "id: tiny", with: "id: bad-sender")
            .replacingOccurrences(of: "{id: m2, sender: maria", with: "{id: m2, sender: bob")
        try badSender.write(to: dir.appendingPathComponent("bad-sender.yaml"), atomically: true, encoding: .utf8)
        let badDate = Self.valid.replacingOccurrences(of: "id: tiny", with: "id: bad-date")
            .replacingOccurrences(of: "deadline: 2026-03-05", with: "deadline: 2026-02-30")
        try badDate.write(to: dir.appendingPathComponent("bad-date.yaml"), atomically: true, encoding: .utf8)

        do {
            _ = try FixtureLoader.load(path: dir.path)
            Issue.record("a directory with broken fixtures loaded")
        } catch {
            let lines = error.problems.map(\.description)
            #expect(lines.count == 2)
            #expect(lines.contains { $0.hasPrefix(dir.path + "/bad-date.yaml:14: expected.rsvps[0].deadline") })
            #expect(lines.contains(dir.path + "/bad-sender.yaml:9: messages[1].sender: 'bob' is not a participant"))
        }
    }
}

@Suite("Fixture loader limits")
struct FixtureLoaderLimitsTests {
    @Test func anAliasBombFixtureIsRefusedWithFileAndLine() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        var lines = ["a: &a [x,x,x,x,x,x,x,x,x]"]
        for (previous, name) in zip(names, names.dropFirst()) {
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
        }
        do {
            _ = try FixtureLoader.parse(lines.joined(separator: "\n") + "\n", file: "evals/fixtures/bomb.yaml")
            Issue.record("the bomb was accepted")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.file == "evals/fixtures/bomb.yaml")
            #expect((error.problems.first?.line ?? 0) >= 1)
            #expect(error.problems.first?.message.contains("alias") == true, "\(error.problems)")
        }
    }
}
