import Core
import Foundation
import Testing
@testable import Extractors

@Suite("Fixture corpus")
struct FixtureCorpusTests {
    static let fixtures: [Fixture] = (try? FixtureLoader.load(path: TestPaths.fixtures)) ?? []

    @Test func allFixturesLoadWithoutProblems() throws {
        do {
            let fixtures = try FixtureLoader.loadDirectory(TestPaths.fixtures)
            #expect(fixtures.count >= 40)
            #expect(fixtures.map(\.id) == fixtures.map(\.id).sorted())
        } catch {
            Issue.record("fixture problems:\n\(error.description)")
        }
    }

    @Test func coverageFacts() throws {
        let fixtures = Self.fixtures
        #expect(fixtures.count >= 40)
        #expect(fixtures.allSatisfy { $0.unlabelled.isEmpty }, "the shipped corpus labels every shipping feature")
        for feature in ScoringRegistry.shipping.ids {
            let withItems = fixtures.filter { $0.expected.count(of: feature) > 0 }.count
            #expect(withItems >= 8, "\(feature.rawValue) has items in only \(withItems) fixtures")
        }
        #expect(fixtures.filter(\.expected.isEmpty).count >= 5)
        #expect(Set(fixtures.map(\.reference.timezone)).count >= 3)
        let injections = fixtures.filter { $0.messages.contains { $0.text.lowercased().contains("ignore") } }
        #expect(injections.count >= 2)
        let oneToOne = fixtures.filter { $0.participants.count == 2 }
        #expect(oneToOne.count >= 5)
        let answered = fixtures.flatMap(\.expected.rsvps).filter { $0.status == .responded }
        let pending = fixtures.flatMap(\.expected.rsvps).filter { $0.status == .pending }
        #expect(answered.count >= 3 && pending.count >= 3)
    }

    /// Labels must be dates the conversation can mean: never before the chat's first message's day
    /// (minus one for zone differences) and within a year of it.
    @Test func expectedDatesAreNearTheConversation() throws {
        for fixture in Self.fixtures {
            let zone = try #require(TimeZone(identifier: fixture.reference.timezone))
            let first = try #require(fixture.messages.map { $0.sentAt.localDate(in: zone) }.min())
            let e = fixture.expected
            let dates = e.calendarEvents.map(\.date) + e.deadlines.map(\.deadline) + e.rsvps.map(\.eventDate)
                + e.rsvps.compactMap(\.deadline)
            for date in dates {
                #expect(first.days(until: date) >= -1 && first.days(until: date) <= 366, "\(fixture.id): \(date)")
            }
        }
    }

    @Test func embeddedSchemaEqualsSchemaFile() throws {
        let data = try #require(FileManager.default.contents(atPath: TestPaths.schema))
        let file = try JSONValue.parse(data)
        let embedded = try JSONValue.parse(FixtureSchema.text)
        #expect(file == embedded, "the embedded schemas/eval-fixture.schema.json differs from the file: rebuild")
        #expect(ScoringRegistry.shipping.fixtureSchema != nil)
    }

    @Test func timesStayStringsThroughYAML() throws {
        let fixture = try #require(Self.fixtures.first { $0.id == "class-picnic" })
        let event = try #require(fixture.expected.calendarEvents.first)
        #expect(event.time == LocalTime(hour: 11, minute: 0))
        #expect(event.date == LocalDate(year: 2026, month: 3, day: 7))
        #expect(fixture.expected.rsvps.first?.response == nil)
    }
}
