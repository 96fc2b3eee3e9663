import Extractors
import Testing

/// Dates as the languages parents most often mix in write them (2026-03-02 is a Monday): Spanish, French and German
/// weekday and month names, "14 de febrero", "11. November", "le 10", and a weekday before a bare day number.
@Suite struct TemporalOtherLanguageTests {
    static let cases: [TemporalCase] = [
        .day("sábado 14 de marzo", Sent.monday, "2026-03-14"),
        .day("el 12 de marzo", Sent.monday, "2026-03-12"),
        .day("Am Mittwoch, 11. März", Sent.monday, "2026-03-11"),
        .day("Samstag 27. Juni", Sent.monday, "2026-06-27"),
        .day("jeudi 17 décembre", Sent.monday, "2026-12-17"),
        .day("le 10", Sent.monday, "2026-03-10"),
        .day("le 3 mars", Sent.monday, "2026-03-03"),
        .day("jueves 12", Sent.monday, "2026-03-12"),
        .day("mardi", Sent.monday, "2026-03-03"),
        .day("Freitag", Sent.monday, "2026-03-06"),
    ]

    @Test(arguments: cases) func reads(_ c: TemporalCase) throws { try c.check() }

    /// Month names that are English words are months only after a day; in English a weekday before a bare number is a
    /// weekday and a time, never a day of the month.
    @Test func everydayWordsStayWords() throws {
        let resolver = TemporalResolver(timeZone: try #require(.init(identifier: TZ.newYork)))
        let reference = try ReferenceInstant.parse(Sent.monday)
        #expect(resolver.resolve("pass the mayo 2 jars", reference: reference).isEmpty)
        #expect(resolver.resolve("Mars 2 is out", reference: reference).isEmpty)
        let saturday = resolver.resolve("Saturday 10", reference: reference)
        #expect(saturday.map(\.date.iso) == ["2026-03-07"], "Saturday, not the 10th")
    }
}
