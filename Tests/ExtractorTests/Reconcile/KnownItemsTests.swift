import Core
@testable import Extractors
import Foundation
import PromptKit
import TestSupport
import Testing

/// The `known` list of a night's answer: its strict schema, and its decoding into verdicts through the features' own checks.
@Suite("Known items of a night's answer")
struct KnownItemsTests {
    static let zone = TimeZone(identifier: "Europe/London")!
    static func at(_ text: String) -> Date { Timestamp(iso: text)!.date }

    static let plain = ConversationInput(
        conversationID: "c1", name: "Parents group", isGroup: false,
        participants: [Participant(id: "ana", name: "Ana Ruiz"), Participant(id: "jen", name: "Jenny Park")],
        messages: [
            InputMessage(id: "m1", senderID: "jen", sentAt: at("2026-12-03T18:00:00+00:00"), text: "Emma's party Sat Dec 12, 2pm at Jump Zone! RSVP by Wed"),
            InputMessage(id: "m2", senderID: "jen", sentAt: at("2026-12-04T09:00:00+00:00"), text: "Change of plan: the party moves to Sun Dec 13, 3pm, same place"),
            InputMessage(id: "m3", senderID: "ana", sentAt: at("2026-12-04T09:30:00+00:00"), text: "Slip handed in for both of ours"),
        ],
        firstNewIndex: 1, timeZone: zone, now: at("2026-12-04T21:00:00+00:00"), viewer: Participant(id: "ana", name: "Ana Ruiz"))

    /// The party (e1, Sat Dec 12 2pm at Jump Zone) and a concert (e2) known from earlier nights.
    static var input: ConversationInput {
        var input = plain
        func event(_ ref: String, _ title: String, _ day: String, _ time: String?, _ place: String?) -> TrackedItem {
            TrackedItem(ref: ref, body: .event(EventItem(title: title, date: LocalDate(iso: day)!, time: time.flatMap { LocalTime(iso: $0) },
                                                         endTime: nil, location: place, description: "", category: .social, confidence: 0.9,
                                                         datePhrase: nil, modelDate: nil, sources: ["m1"])))
        }
        input.state = ConversationState(items: [event("e1", "Emma's birthday party", "2026-12-12", "14:00", "Jump Zone"),
                                                event("e2", "Winter concert", "2026-12-18", nil, nil)])
        return input
    }

    static var window: MessageWindow { MessageWindow(messages: input.messages, participants: input.participants) }

    @Test func theSchemaIsStrictAndTakesEachFeaturesItemAsAChange() throws {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let parts = try FeatureRegistry.shipping.ids.map { ($0, try #require(library.active(id: $0.promptID)?.outputSchema)) }
        let schema = KnownItems.schema(parts)
        let wrapped: JSONValue = ["type": "object", "additionalProperties": false, "required": ["known"], "properties": ["known": schema]]
        #expect(StrictSchemaLint.problems(in: wrapped) == [])
        // Compact: a change names what changed, one shape for every feature (the request pays for it once).
        #expect(schema["items"]?["properties"]?["changed"]?["anyOf"]?.arrayValue?.count == 2)
        let compiled = try JSONSchema(wrapped)
        let good: JSONValue = ["known": [["ref": "t1", "verdict": "met", "for": ["p1"], "message_ids": ["m3"], "changed": nil]]]
        #expect(compiled.validate(good).isEmpty)
        let bad: JSONValue = ["known": [["ref": "t1", "verdict": "done", "for": [], "message_ids": [], "changed": nil]]]
        #expect(!compiled.validate(bad).isEmpty)
    }

    @Test func entriesBecomeVerdictsWithRealIdsAndAChangeGoesThroughItsFeaturesChecks() {
        // The party's new date and time; its title and place stand as listed (null).
        let moved: JSONValue = [
            "words": nil, "date": "2026-12-13", "time": "15:00", "end_time": nil, "location": nil, "date_phrase": "Sun Dec 13",
            "evidence": "the party moves to Sun Dec 13, 3pm, same place", "source_message_ids": ["m1", "m2"], "responses": [],
        ]
        let invented: JSONValue = ["words": "Zoo trip", "date": "2026-12-20", "time": nil, "end_time": nil, "location": nil,
                                   "date_phrase": nil, "evidence": "We go to the zoo on the 20th", "source_message_ids": ["m2"], "responses": []]
        let answer: JSONValue = ["known": [
            ["ref": "e1", "verdict": "changed", "for": [], "message_ids": ["m2"], "changed": moved],
            ["ref": "t1", "verdict": "met", "for": ["p1", "p2"], "message_ids": ["m3"], "changed": nil],
            ["ref": "t2", "verdict": "met", "for": ["p7"], "message_ids": ["m9"], "changed": nil],
            ["ref": "e2", "verdict": "changed", "for": [], "message_ids": ["m2"], "changed": invented],
            ["ref": "e3", "verdict": "changed", "for": [], "message_ids": ["m2"], "changed": nil],
        ]]
        let (verdicts, notes) = KnownItems.decode(answer, registry: .shipping, window: Self.window, input: Self.input)
        #expect(verdicts.count == 3)
        guard case .changed(.event(let event))? = verdicts.first?.kind else {
            Issue.record("the first verdict is not a changed event: \(verdicts)")
            return
        }
        #expect(event.date == LocalDate(iso: "2026-12-13") && event.time == LocalTime(iso: "15:00") && event.sources == ["m1", "m2"])
        #expect(event.title == "Emma's birthday party" && event.location == "Jump Zone", "what the change leaves null stands")
        #expect(verdicts[1] == Verdict(ref: "t1", .met(for: ["ana", "jen"]), evidence: ["m3"]))
        #expect(verdicts[2] == Verdict(ref: "t2", .met(for: ["p7"]), evidence: ["m9"]), "unknown aliases stay for the reconciliation to refuse")
        #expect(notes.contains { $0.droppedItem && $0.message.contains("e3") })
        #expect(notes.contains { $0.kind == .noEvidence || $0.kind == .unbacked }, "the invented change is dropped by the evidence checks: \(notes)")
    }
}
