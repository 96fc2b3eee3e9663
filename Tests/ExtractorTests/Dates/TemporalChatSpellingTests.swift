import Extractors
import Testing

/// The chat spellings parents use for days and times, read like the full words (2026-03-02 is a Monday).
@Suite struct TemporalChatSpellingTests {
    static let cases: [TemporalCase] = [
        .day("tmrw", Sent.monday, "2026-03-03"),
        .day("tmw", Sent.monday, "2026-03-03"),
        .day("tmr", Sent.monday, "2026-03-03"),
        .day("2moro", Sent.monday, "2026-03-03"),
        .day("see u 2morrow", Sent.monday, "2026-03-03"),
        .day("nxt thurs", Sent.monday, "2026-03-12"),
        .day("next week thursday", Sent.monday, "2026-03-12"),
        .day("nxt wk thurs", Sent.monday, "2026-03-12"),
        .day("nxt wknd", Sent.monday, "2026-03-14"),
        .day("thurs", Sent.monday, "2026-03-05"),
        .day("Thurs.", Sent.monday, "2026-03-05"),
        .day("weds", Sent.monday, "2026-03-04"),
        .day("on sat", Sent.monday, "2026-03-07"),
        .minute("tmrw 4pm", Sent.monday, "2026-03-03T16:00:00-05:00"),
        .minute("tmw at 4p", Sent.monday, "2026-03-03T16:00:00-05:00"),
        .minute("2moro 4:30p", Sent.monday, "2026-03-03T16:30:00-05:00"),
        .minute("on sat at 10a", Sent.monday, "2026-03-07T10:00:00-05:00"),
        .minute("Sat 10a", Sent.monday, "2026-03-07T10:00:00-05:00"),
        .minute("weds at 4:30p", Sent.monday, "2026-03-04T16:30:00-05:00"),
    ]

    @Test(arguments: cases) func reads(_ c: TemporalCase) throws { try c.check() }

    /// A chat spelling leaves nothing unread, so code's date replaces the model's (the reading is complete).
    @Test func chatSpellingsAreReadWhole() throws {
        let resolver = TemporalResolver(timeZone: try #require(.init(identifier: TZ.newYork)))
        for phrase in ["tmw", "2moro", "nxt wk thurs", "weds 4:30p"] {
            let reading = resolver.read(phrase, reference: try ReferenceInstant.parse(Sent.monday), deadline: false)
            #expect(reading.isComplete, "\(phrase): unread \(reading.unread)")
        }
    }
}
