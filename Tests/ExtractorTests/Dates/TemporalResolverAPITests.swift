import Core
import Extractors
import Foundation
import Testing

@Suite struct TemporalResolverAPITests {
    let resolver = TemporalResolver(timeZone: TimeZone(identifier: TZ.newYork)!)
    let monday = try! ReferenceInstant.parse(Sent.monday)

    @Test func findsEveryExpressionInOrderWithUTF16Ranges() {
        let text = "🎉 Dinner Friday at 6, then soccer Saturday 9-11am; forms due by the 10th"
        let found = resolver.resolve(text, reference: monday)
        #expect(found.map(\.text) == ["Friday at 6", "Saturday 9-11am", "due by the 10th"])
        #expect(found.map(\.startISO) == ["2026-03-06T18:00:00-05:00", "2026-03-07T09:00:00-05:00", "2026-03-10"])
        #expect(found.map(\.isDeadline) == [false, false, true])
        #expect(found[1].endISO == "2026-03-07T11:00:00-05:00")
        let utf16 = Array(text.utf16)
        for expression in found {
            #expect(String(decoding: utf16[expression.range], as: UTF16.self) == expression.text)
        }
        #expect(found[0].range == 10..<21)  // "🎉" is two UTF-16 units
    }

    @Test func phraseCombinesSeparatedDateAndTime() throws {
        let combined = try #require(resolver.resolvePhrase("Friday, around 4pm", reference: monday))
        #expect(combined.startISO == "2026-03-06T16:00:00-05:00")
        #expect(combined.grain == .minute)
        #expect(combined.text == "Friday, around 4pm")

        let deadline = try #require(resolver.resolvePhrase("by Friday, ideally 5pm", reference: monday))
        #expect(deadline.startISO == "2026-03-06T17:00:00-05:00")
        #expect(deadline.isDeadline)
    }

    @Test func phraseReturnsTheSingleValue() throws {
        let value = try #require(resolver.resolvePhrase("next Friday at 4pm", reference: monday))
        #expect(value.startISO == "2026-03-13T16:00:00-04:00")
        #expect(value.date == LocalDate(year: 2026, month: 3, day: 13))
        #expect(value.time == LocalTime(hour: 16, minute: 0))
        #expect(resolver.resolvePhrase("sometime soon", reference: monday) == nil)
        #expect(resolver.resolvePhrase("", reference: monday) == nil)
    }

    @Test func dayGrainHasNoInstant() throws {
        let value = try #require(resolver.resolvePhrase("tomorrow", reference: monday))
        #expect(value.start == nil)
        #expect(value.time == nil)
        #expect(value.endTime == nil)
        #expect(value.startISO == "2026-03-03")
    }

    @Test func rangeKeepsEndTime() throws {
        let value = try #require(resolver.resolvePhrase("2-4pm", reference: monday))
        #expect(value.time == LocalTime(hour: 14, minute: 0))
        #expect(value.endTime == LocalTime(hour: 16, minute: 0))
        let start = try #require(value.start)
        let end = try #require(value.end)
        #expect(end.timeIntervalSince(start) == 7200)
    }

    @Test func expressionRoundTripsThroughJSON() throws {
        let value = try #require(resolver.resolvePhrase("by Friday at 5pm", reference: monday))
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(TemporalExpression.self, from: data) == value)
        let skipped = try #require(
            resolver.resolvePhrase("Sunday at 2:30am", reference: try ReferenceInstant.parse(Sent.springEve))
        )
        #expect(skipped.wallTimeAdjustment == .skippedForward(minutes: 60))
        #expect(try JSONDecoder().decode(TemporalExpression.self, from: JSONEncoder().encode(skipped)) == skipped)
    }

    @Test(arguments: [
        ("2026-03-08T09:30:00-05:00", 1_772_980_200.0),
        ("2026-03-08T14:30:00Z", 1_772_980_200.0),
        ("2026-03-08T14:30Z", 1_772_980_200.0),
        ("2026-03-08T20:00:00.500+05:30", 1_772_980_200.5),
        ("2026-03-08T09:30:00-0500", 1_772_980_200.0),
    ])
    func referenceInstantParses(_ text: String, _ seconds: Double) throws {
        #expect(try ReferenceInstant.parse(text).timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        ("2026-03-08T09:30:00", "missing time zone offset"),
        ("2026-03-08", "no 'T'"),
        ("2026-02-30T09:30:00Z", "not a real YYYY-MM-DD date"),
        ("2026-03-08T25:30:00Z", "is not HH:MM"),
        ("2026-03-08T09:30:00+5", "is not ±HH:MM"),
        ("yesterday", "no 'T'"),
    ])
    func referenceInstantRejects(_ text: String, _ reason: String) {
        #expect {
            _ = try ReferenceInstant.parse(text)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains(text)
        }
    }
}
