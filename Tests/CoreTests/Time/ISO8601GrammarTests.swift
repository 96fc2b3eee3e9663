import Core
import Foundation
import Testing

@Suite("ISO8601Instant's styles and grammars: what each writer and reader of the package needs")
struct ISO8601GrammarTests {
    /// 2026-03-02T13:14:00Z.
    static let instant = Date(timeIntervalSince1970: 1_772_457_240)

    private func date(_ text: String, _ grammar: ISO8601Instant.Grammar) -> Date? {
        try? ISO8601Instant.parse(text, grammar: grammar).get().date
    }

    private func failure(_ text: String, _ grammar: ISO8601Instant.Grammar) -> ISO8601Instant.ParseFailure? {
        guard case .failure(let failure) = ISO8601Instant.parse(text, grammar: grammar) else { return nil }
        return failure
    }

    @Test("styles: a numeric zero offset, minutes for keys, microseconds for Postgres (rounded, carried into the second)")
    func styles() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(ISO8601Instant.string(Self.instant, style: .numericOffset) == "2026-03-02T13:14:00+00:00")
        #expect(ISO8601Instant.string(Self.instant, in: newYork, style: .numericOffset) == "2026-03-02T08:14:00-05:00")
        #expect(ISO8601Instant.string(Self.instant.addingTimeInterval(59.9), style: .minutes) == "2026-03-02T13:14Z")
        #expect(ISO8601Instant.string(Self.instant.addingTimeInterval(0.123456), style: .microseconds) == "2026-03-02T13:14:00.123456Z")
        #expect(ISO8601Instant.string(Self.instant.addingTimeInterval(0.9999996), style: .microseconds) == "2026-03-02T13:14:01.000000Z")
        #expect(ISO8601Instant.string(Date(timeIntervalSince1970: -0.5), style: .microseconds) == "1969-12-31T23:59:59.500000Z")
        #expect(WallClock(timeZone: newYork).iso(Self.instant) == "2026-03-02T08:14:00-05:00")
    }

    @Test("postgres: a space, hour-only and second offsets, no offset as UTC; reads back what it binds")
    func postgres() {
        #expect(date("2026-03-02 13:14:00+00", .postgres) == Self.instant)
        #expect(date("2026-03-02 08:14:00-05", .postgres) == Self.instant)
        #expect(date("2026-03-02 18:44:00+05:30", .postgres) == Self.instant)
        #expect(date("2026-03-02 13:14:00+00:00:00", .postgres) == Self.instant)
        #expect(date("2026-03-02 13:14:00", .postgres) == Self.instant)
        #expect(date("2026-03-02T13:14:00Z", .postgres) == Self.instant)
        #expect(date("2026-03-02 13:14:00.5+00", .postgres) == Self.instant.addingTimeInterval(0.5))
        for bad in ["2026-03-02 13:14+00", "2026-03-02 13:14:00Z+00", "2026-03-02 13:14:00+", "2026-02-30 13:14:00+00", "2026-03-02"] {
            #expect(date(bad, .postgres) == nil, "\(bad)")
        }
        for seconds in stride(from: -1_000_000.123456, to: 3_000_000_000, by: 123_456_789.654321) {
            let original = Date(timeIntervalSince1970: seconds)
            let read = date(ISO8601Instant.string(original, style: .microseconds), .postgres)
            #expect(abs((read ?? .distantPast).timeIntervalSince(original)) < 0.000_001, "\(seconds)")
        }
    }

    @Test("reference: upper-case T, seconds optional, offsets up to 18 hours; each failure names its part")
    func reference() {
        #expect(date("2026-03-02T08:14-05:00", .reference) == Self.instant)
        #expect(date("2026-03-02T08:14:00-0500", .reference) == Self.instant)
        #expect(failure("2026-03-02t08:14:00Z", .reference)?.kind == .noSeparator)
        let offset = failure("2026-03-02T08:14:00+19:00", .reference)
        #expect(offset?.kind == .offset && offset?.part == "+19:00")
        let time = failure("2026-03-02T25:14:00Z", .reference)
        #expect(time?.kind == .time && time?.part == "25:14:00")
        let day = failure("2026-13-02T08:14:00Z", .reference)
        #expect(day?.kind == .date && day?.part == "2026-13-02")
        #expect(failure("2026-03-02T08:14:00", .reference)?.kind == .missingOffset)
    }

    @Test("fixture: seconds optional, only Z or ±HH:MM, and the offset as written")
    func fixture() throws {
        let parsed = try ISO8601Instant.parse("2026-03-02T08:14-05:00", grammar: .fixture).get()
        #expect(parsed.date == Self.instant && parsed.utcOffsetSeconds == -18_000)
        #expect(date("2026-03-02T08:14:00-0500", .fixture) == nil)
        #expect(date("2026-03-02T13:14:00,5Z", .fixture) == nil)
    }

    @Test("lenient: a model's argument with spaces around, a space separator, no seconds; a missing offset is its own failure")
    func lenient() {
        #expect(date("  2026-03-02 08:14-05:00 ", .lenient) == Self.instant)
        #expect(date("2026-03-02T13:14:00,5z", .lenient) == Self.instant.addingTimeInterval(0.5))
        #expect(failure("2026-03-02T08:14", .lenient)?.kind == .missingOffset)
        #expect(failure("2026-03-02T08:14:00 EST", .lenient)?.kind == .time)
    }

    @Test("rfc3339: seconds required, leap seconds only at 23:59:60 UTC, year 0000 allowed")
    func rfc3339() {
        #expect(date("1990-12-31T23:59:60Z", .rfc3339) != nil)
        #expect(date("1990-12-31T15:59:60-08:00", .rfc3339) != nil)
        #expect(date("1990-12-31T22:59:60Z", .rfc3339) == nil)
        #expect(date("0000-01-01T00:00:00Z", .rfc3339) != nil)
        #expect(date("0000-01-01T00:00:00Z", .internet) == nil)
        #expect(date("2026-03-02T13:14Z", .rfc3339) == nil)
        #expect(date("2026-03-02T13:14:00+0000", .rfc3339) == nil)
    }
}
