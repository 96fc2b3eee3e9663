import Core
import Extractors
import Foundation
import JobsKit
import Testing

@Suite("Eval prediction mapping")
struct PredictionMappingTests {
    /// An extraction as the engine would return it, with a priority no schema would let through (categories are
    /// typed enums now: an unknown one cannot be decoded at all, see `unknownCategoryIsRefused`).
    static let extraction: JSONValue = [
        "events": [[
            "title": "Party", "date": "2026-03-07", "time": "11:00", "endTime": nil, "location": "Park", "description": "",
            "category": "social", "confidence": 0.5, "datePhrase": nil, "modelDate": nil, "sources": ["m1", "m2"],
        ]],
        "decisions": [["decision": "Pizza", "category": "food", "decidedBy": nil, "deadline": nil, "datePhrase": nil,
                       "modelDate": nil, "sources": ["m3"]]],
        "priorities": [["messageID": "m2", "priority": "low", "reason": "", "actionRequired": true]],
        "rsvps": [[
            "event": "Party", "eventDate": "2026-03-07", "deadline": "2026-03-05", "requestedBy": nil, "datePhrase": nil,
            "modelDate": nil, "sources": ["m1"],
            "responses": [
                ["participantID": "ana", "response": "no", "messageID": "m2"],
                ["participantID": "ana", "response": "yes", "messageID": "m4"],
                ["participantID": "ben", "response": "maybe", "messageID": "m3"],
            ],
        ]],
        "deadlines": [["task": "Form", "deadline": "2026-03-06", "time": nil, "category": "school", "priority": "medium",
                       "details": nil, "datePhrase": nil, "modelDate": nil, "sources": ["m2"]]],
        "notes": [],
    ]

    @Test("categories map as they are, an unknown priority becomes medium, and RSVP status is the reference user's latest answer")
    func mapping() throws {
        let extraction = try Self.extraction.decode(Extraction.self)
        let forAna = FeatureRegistry.shipping.scored(extraction, user: "ana")
        #expect(forAna.calendarEvents == [ScoredEvent(title: "Party", date: LocalDate(iso: "2026-03-07")!, time: LocalTime(iso: "11:00")!,
                                                           location: "Park", category: .social, source: ["m1", "m2"])])
        #expect(forAna.decisions.map(\.category) == [.food])
        #expect(forAna.priorityMessages == [ScoredPriorityMessage(message: "m2", priority: .medium, actionRequired: true)])
        #expect(forAna.deadlines.map(\.category) == [.school])
        let rsvp = try #require(forAna.rsvps.first)
        #expect(rsvp.status == .responded && rsvp.response == .yes, "the latest of Ana's answers")
        #expect(rsvp.deadline == LocalDate(iso: "2026-03-05")! && rsvp.source == ["m1"])

        let forBen = try #require(FeatureRegistry.shipping.scored(extraction, user: "ben").rsvps.first)
        #expect(forBen.status == .responded && forBen.response == .maybe)
        let forCara = try #require(FeatureRegistry.shipping.scored(extraction, user: "cara").rsvps.first)
        #expect(forCara.status == .pending && forCara.response == nil)
    }

    @Test("a stored extraction whose category is outside the enum is refused, not mapped")
    func unknownCategoryIsRefused() throws {
        guard case .object(var root) = Self.extraction, case .array(var events) = root["events"],
              case .object(var event) = events[0] else { Issue.record("fixture shape changed"); return }
        event["category"] = "party"
        events[0] = .object(event)
        root["events"] = .array(events)
        #expect(throws: DecodingError.self) { try JSONValue.object(root).decode(Extraction.self) }
    }
}
