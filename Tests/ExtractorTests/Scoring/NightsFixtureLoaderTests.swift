import Foundation
import Testing
@testable import Extractors
import Core

/// Nights fixtures (docs/nights-format.md): what loads, how each night becomes a fixture, and what is refused.
@Suite("Nights fixture loader")
struct NightsFixtureLoaderTests {
    static let valid = """
        id: tiny-nights
        description: A party moved on the second night.
        reference: {timezone: Europe/London, user: ana}
        participants:
          - {id: ana, name: Ana Ruiz}
          - {id: jen, name: Jenny Park}
        nights:
          - now: "2026-12-03T21:00:00+00:00"
            messages:
              - {id: m1, sender: jen, sent_at: "2026-12-03T18:00:00+00:00", text: "Party Sat Dec 12, 2pm! RSVP by Wed"}
            expected:
              calendar_events: [{title: Party, date: 2026-12-12, time: "14:00", location: null, category: social, source: [m1]}]
              rsvps: [{event: Party, event_date: 2026-12-12, deadline: 2026-12-09, requested_by: jen, source: [m1], status: pending}]
          - now: "2026-12-04T21:00:00+00:00"
            messages:
              - {id: m2, sender: jen, sent_at: "2026-12-04T09:00:00+00:00", text: "The party moves to Sunday 3pm"}
            expected:
              calendar_events: [{title: Party, date: 2026-12-13, time: "15:00", location: null, category: social, source: [m1, m2]}]
              rsvps: [{event: Party, event_date: 2026-12-13, deadline: 2026-12-09, requested_by: jen, source: [m1, m2], status: pending}]

        """

    private func problems(_ text: String) -> [FileProblem] {
        do {
            _ = try FixtureLoader.parse(text, file: "evals/nights/tiny-nights.yaml")
            return []
        } catch {
            return error.problems
        }
    }

    @Test func aNightsFixtureLoadsAndEachNightIsAFixtureOfItsOwn() throws {
        let fixture = try FixtureLoader.parse(Self.valid, file: "evals/nights/tiny-nights.yaml")
        #expect(fixture.nights?.count == 2)
        #expect(fixture.messages.map(\.id) == ["m1", "m2"])
        #expect(fixture.reference.now == Timestamp(iso: "2026-12-04T21:00:00+00:00"))
        #expect(fixture.expected.calendarEvents.first?.date == LocalDate(iso: "2026-12-13"))
        #expect(fixture.unlabelled == [.decisions, .priorityMessages, .deadlines])
        let nights = fixture.nightFixtures
        #expect(nights.map(\.id) == ["tiny-nights#1", "tiny-nights#2"])
        #expect(nights.map { $0.messages.map(\.id) } == [["m1"], ["m1", "m2"]])
        #expect(nights[0].reference.now == Timestamp(iso: "2026-12-03T21:00:00+00:00"))
        #expect(nights[0].expected.rsvps.first?.status == .pending && nights[0].expected.rsvps.first?.response == nil)
        #expect(nights[0].unlabelled == fixture.unlabelled)
    }

    @Test func aLabelCitingALaterNightsMessageIsRefusedWithItsPlace() {
        let text = Self.valid.replacingOccurrences(of: "category: social, source: [m1]}]", with: "category: social, source: [m2]}]")
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.field == "nights[0].expected.calendar_events[0].source[0]")
        #expect(found.first?.message.contains("of this night or before") == true)
        #expect(found.first?.line == 12)
    }

    @Test func nightsMustMoveForwardAndMessagesBeSentByTheirNight() {
        let backwards = Self.valid.replacingOccurrences(of: "now: \"2026-12-04T21:00:00+00:00\"", with: "now: \"2026-12-02T21:00:00+00:00\"")
        #expect(problems(backwards).map(\.field).contains("nights[1].now"))
        #expect(problems(backwards).map(\.field).contains("nights[1].messages[0].sent_at"))
        let repeated = Self.valid.replacingOccurrences(of: "{id: m2, sender: jen", with: "{id: m1, sender: jen")
        #expect(problems(repeated).contains { $0.field == "nights[1].messages[0].id" && $0.message.contains("duplicate message id 'm1'") })
    }

    @Test func everyNightLabelsTheSameFeatures() {
        let text = Self.valid.replacingOccurrences(of: "      rsvps: [{event: Party, event_date: 2026-12-13", with: "      decisions: []\n      rsvps: [{event: Party, event_date: 2026-12-13")
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.field == "nights[0].expected", "the night that differs from the last")
        #expect(found.first?.message.contains("every night labels the same features") == true)
    }

    @Test func aNightsFixtureIsCheckedAgainstItsOwnSchema() {
        let withMessages = Self.valid.replacingOccurrences(of: "nights:\n", with: "messages: []\nnights:\n")
        #expect(problems(withMessages).contains { $0.message.contains("messages") })
        let withNow = Self.valid.replacingOccurrences(of: "reference: {timezone", with: "reference: {now: \"2026-12-03T21:00:00+00:00\", timezone")
        #expect(!problems(withNow).isEmpty)
        let answeredWithoutResponse = Self.valid.replacingOccurrences(of: "source: [m1, m2], status: pending}", with: "source: [m1, m2], status: responded}")
        #expect(problems(answeredWithoutResponse).contains { $0.field.hasPrefix("nights[1].expected.rsvps[0]") })
    }
}
