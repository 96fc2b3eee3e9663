import Core
@testable import Extractors
import Foundation
import Testing

/// The field check: an item's title, task, decision or event must share content with the messages it cites, a time
/// or place nobody wrote is cleared, a quote running across two messages cites both, and a weekday written with a
/// month-day decides the date.
@Suite struct FieldBackingTests {
    static let zone = TimeZone(identifier: "America/New_York")!

    /// Messages m1, m2, ... sent a minute apart from `sent` by Lisa, in a window.
    static func context(_ texts: [String], sent: String = "2026-04-12T18:05:00-04:00",
                        feature: ExtractionFeature = .calendarEvents) throws -> DecodeContext {
        let start = try ReferenceInstant.parse(sent)
        let messages = texts.indices.map { InputMessage(id: "id-\($0 + 1)", senderID: "lisa", sentAt: start + Double($0) * 60, text: texts[$0]) }
        let participants = [Participant(id: "lisa", name: "Lisa Chen"), Participant(id: "maria", name: "Maria Lopez")]
        let input = ConversationInput(conversationID: "c", name: "Soccer", isGroup: true, participants: participants, messages: messages,
                                      timeZone: zone, now: start)
        return DecodeContext(feature: feature, window: MessageWindow(messages: messages, participants: participants), input: input)
    }

    static func event(_ title: String, date: String, time: String? = nil, location: String? = nil, phrase: String? = nil,
                      evidence: String, cites: [String] = ["m1"], confidence: Double = 0.9) -> JSONValue {
        ["events": [[
            "title": .string(title), "date": .string(date), "time": time.map(JSONValue.string) ?? .null, "end_time": nil,
            "location": location.map(JSONValue.string) ?? .null, "description": "", "category": "activity",
            "confidence": .number(confidence), "date_phrase": phrase.map(JSONValue.string) ?? .null, "evidence": .string(evidence),
            "source_message_ids": .array(cites.map(JSONValue.string)),
        ]]]
    }

    static func decode(_ answer: JSONValue, _ context: inout DecodeContext) -> [EventItem] {
        CalendarEvents().decodeItems(answer, context: &context)
    }

    @Test func paraphrasedTitlesSurvive() throws {
        var context = try Self.context(["Emma's game Sat 10am at Riverside Park", "Match Saturday 9:30 at the school field"])
        let kept = Self.decode(Self.event("Emma's soccer game", date: "2026-04-18", time: "10:00", location: "Riverside Park",
                                          phrase: "Sat 10am", evidence: "game Sat 10am"), &context)
        #expect(kept.map(\.title) == ["Emma's soccer game"])
        #expect(kept.first?.location == "Riverside Park" && kept.first?.time == LocalTime(hour: 10, minute: 0))
        // No word shared ("Soccer fixture" for "Match"), but the date and time are the message's own.
        var other = try Self.context(["Match Saturday 9:30 at the school field"])
        let timed = Self.decode(Self.event("Soccer fixture", date: "2026-04-18", time: "09:30", phrase: "Saturday 9:30",
                                           evidence: "Match Saturday 9:30"), &other)
        #expect(timed.count == 1)
        #expect(other.tally.unbacked == 0 && other.tally.cleared == 0)
    }

    @Test func aMadeUpItemQuotingARealMessageIsDropped() throws {
        var context = try Self.context(["Schedule for this week: practice Tuesday at 5:30 at Lincoln Field."])
        let kept = Self.decode(Self.event("Piano recital", date: "2026-04-23", time: "19:00", location: "Town Hall",
                                          evidence: "Schedule for this week: practice Tuesday at 5:30 at Lincoln Field."), &context)
        #expect(kept.isEmpty)
        #expect(context.tally.unbacked == 1)
        #expect(context.notes.contains { $0.kind == .unbacked && $0.droppedItem })
    }

    @Test func aFieldNobodyWroteIsClearedAndCounted() throws {
        var context = try Self.context(["Practice Tuesday at Lincoln Field, bring water"])
        let kept = Self.decode(Self.event("Soccer practice", date: "2026-04-14", time: "15:00", location: "Memorial Park",
                                          phrase: "Tuesday", evidence: "Practice Tuesday at Lincoln Field"), &context)
        #expect(kept.count == 1)
        #expect(kept.first?.time == nil && kept.first?.location == nil)
        #expect(context.tally.cleared == 2)
        #expect(context.notes.filter { $0.kind == .fieldCleared }.count == 2)
    }

    @Test func aQuoteAcrossAMessageBreakCitesBothMessages() throws {
        var context = try Self.context(["Game Saturday at 10.", "Riverside Park field 3", "Thanks!"])
        let kept = Self.decode(Self.event("Game", date: "2026-04-18", time: "10:00", location: "Riverside Park field 3",
                                          phrase: "Saturday at 10", evidence: "Game Saturday at 10. Riverside Park field 3"), &context)
        #expect(kept.first?.sources == ["id-1", "id-2"])
        #expect(kept.first?.location == "Riverside Park field 3")
        #expect(context.tally.aligned == 1 && context.tally.dropped == 0)
        // Words from two messages that are not neighbours are not a run-on quote.
        var apart = try Self.context(["Game Saturday at 10.", "Who has the snacks?", "Riverside Park field 3"])
        #expect(Self.decode(Self.event("Game", date: "2026-04-18", evidence: "Game Saturday at 10. Riverside Park field 3"), &apart).isEmpty)
    }

    @Test func aWrittenWeekdayDecidesTheDate() throws {
        // Sent on Tuesday 2026-11-24: "Wednesday, November 25" is the next day; the model's date stands.
        var context = try Self.context(["Dentist Wednesday, November 25 at 4pm"], sent: "2026-11-24T19:54:00-05:00")
        let kept = Self.decode(Self.event("Dentist", date: "2026-11-25", phrase: "Wednesday, November 25 at 4pm",
                                          evidence: "Dentist Wednesday, November 25 at 4pm"), &context)
        #expect(kept.first?.date.iso == "2026-11-25" && kept.first?.modelDate == nil)
        // Sent the day after: that Wednesday is past, not next year's Thursday.
        var late = try Self.context(["Dentist Wednesday, November 25 at 4pm"], sent: "2026-11-26T19:54:00-05:00")
        #expect(Self.decode(Self.event("Dentist", date: "2027-11-25", phrase: "Wednesday, November 25 at 4pm",
                                       evidence: "Dentist Wednesday, November 25 at 4pm"), &late).isEmpty)
        #expect(late.notes.contains { $0.droppedItem && $0.message.contains("past") })
        // A written year that disagrees: the model's date on the written weekday is kept, with low confidence.
        var conflict = try Self.context(["Recital Monday, March 3, 2026 at 6pm"], sent: "2026-02-20T09:00:00-05:00")
        let flagged = Self.decode(Self.event("Recital", date: "2026-03-02", phrase: "Monday, March 3, 2026 at 6pm",
                                             evidence: "Recital Monday, March 3, 2026 at 6pm"), &conflict)
        #expect(flagged.first?.date.iso == "2026-03-02")
        #expect((flagged.first?.confidence ?? 1) <= DecodeContext.conflictConfidence)
        #expect(conflict.notes.contains { $0.kind == .dateUnconfirmed })
    }

    @Test func contentWordsFoldPluralsAndOtherLanguagesDays() {
        #expect(FieldWords.content("Tuesdays practices") == ["tuesday", "practice"])
        #expect(FieldWords.content("Fútbol el sábado") .contains("saturday"))
        #expect(FieldWords.content("Reminder: the event") == [])
    }
}
