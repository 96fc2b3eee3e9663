import Core
import Extractors
import Foundation
import Testing

/// Offsets across DST changes in three zones, and the day a sent instant falls on.
///
/// US: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
/// UK: 2026-03-29 01:00 GMT → 02:00 BST; 2026-10-25 02:00 BST → 01:00 GMT.
/// Sydney: 2026-04-05 03:00 AEDT → 02:00 AEST; 2026-10-04 02:00 AEST → 03:00 AEDT.
@Suite struct TemporalZoneTests {
    static let londonSpring = "2026-03-28T12:00:00Z"  // Saturday
    static let londonFall = "2026-10-24T12:00:00+01:00"  // Saturday
    static let sydneyAutumn = "2026-04-04T12:00:00+11:00"  // Saturday
    static let sydneySpring = "2026-10-03T12:00:00+10:00"  // Saturday

    static let offsetsCases: [TemporalCase] = [
        .minute("tomorrow at 4pm", Sent.springEve, "2026-03-08T16:00:00-04:00"),
        .minute("tomorrow at 1:30am", Sent.springEve, "2026-03-08T01:30:00-05:00"),
        .minute("tomorrow at 3am", Sent.springEve, "2026-03-08T03:00:00-04:00"),
        .minute("today at 5", Sent.springEve, "2026-03-07T17:00:00-05:00"),
        .day("tomorrow", Sent.springEve, "2026-03-08"),
        .minute("tomorrow at 2:30am", Sent.fallEve, "2026-11-01T02:30:00-05:00"),
        .minute("tomorrow at 12:30am", Sent.fallEve, "2026-11-01T00:30:00-04:00"),
        .minute("Sunday at 4pm", Sent.fallEve, "2026-11-01T16:00:00-05:00"),
        .minute("tonight at 11", Sent.fallEve, "2026-10-31T23:00:00-04:00"),
        .minute("tomorrow at 10am", londonSpring, "2026-03-29T10:00:00+01:00", zone: TZ.london),
        .minute("today at 4pm", londonSpring, "2026-03-28T16:00:00+00:00", zone: TZ.london),
        .minute("tomorrow at 12:30am", londonSpring, "2026-03-29T00:30:00+00:00", zone: TZ.london),
        .day("next Friday", londonSpring, "2026-04-03", zone: TZ.london),
        .minute("tomorrow at 9am", londonFall, "2026-10-25T09:00:00+00:00", zone: TZ.london),
        .minute("tomorrow at 4pm", sydneyAutumn, "2026-04-05T16:00:00+10:00", zone: TZ.sydney),
        .minute("today at 4pm", sydneyAutumn, "2026-04-04T16:00:00+11:00", zone: TZ.sydney),
        .minute("Monday at 9am", sydneySpring, "2026-10-05T09:00:00+11:00", zone: TZ.sydney),
        .minute("today at 9pm", sydneySpring, "2026-10-03T21:00:00+10:00", zone: TZ.sydney),
        // The sent instant's day depends on the zone: 14:00Z on Mar 2 is already Tuesday in Sydney.
        .day("today", "2026-03-02T14:00:00Z", "2026-03-03", zone: TZ.sydney),
        .day("tomorrow", "2026-03-02T14:00:00Z", "2026-03-04", zone: TZ.sydney),
        .day("today", "2026-03-03T02:00:00Z", "2026-03-02"),
        .day("Tuesday", "2026-03-03T02:00:00Z", "2026-03-03"),
        .day("next Monday", "2026-03-02T14:00:00Z", "2026-03-09", zone: TZ.sydney),
    ]

    @Test(arguments: offsetsCases) func offsets(_ c: TemporalCase) throws { try c.check() }

    /// A wall time that DST skips or repeats: the instant, the adjusted wall time and the flag.
    struct AdjustmentCase: Sendable, CustomTestStringConvertible {
        let text: String
        let reference: String
        let zone: String
        let start: String
        let wallTime: String
        let adjustment: WallTimeAdjustment?
        var testDescription: String { "\"\(text)\" in \(zone)" }
    }

    static let adjustmentsCases: [AdjustmentCase] = [
        AdjustmentCase(text: "tomorrow at 2:30am", reference: Sent.springEve, zone: TZ.newYork,
                       start: "2026-03-08T03:30:00-04:00", wallTime: "03:30", adjustment: .skippedForward(minutes: 60)),
        AdjustmentCase(text: "Sunday at 2am", reference: Sent.springEve, zone: TZ.newYork,
                       start: "2026-03-08T03:00:00-04:00", wallTime: "03:00", adjustment: .skippedForward(minutes: 60)),
        AdjustmentCase(text: "tomorrow at 1:30am", reference: Sent.fallEve, zone: TZ.newYork,
                       start: "2026-11-01T01:30:00-04:00", wallTime: "01:30", adjustment: .ambiguousFirstOccurrence),
        AdjustmentCase(text: "tomorrow at 1am", reference: Sent.fallEve, zone: TZ.newYork,
                       start: "2026-11-01T01:00:00-04:00", wallTime: "01:00", adjustment: .ambiguousFirstOccurrence),
        AdjustmentCase(text: "tomorrow at 1:30am", reference: londonSpring, zone: TZ.london,
                       start: "2026-03-29T02:30:00+01:00", wallTime: "02:30", adjustment: .skippedForward(minutes: 60)),
        AdjustmentCase(text: "tomorrow at 1:30am", reference: londonFall, zone: TZ.london,
                       start: "2026-10-25T01:30:00+01:00", wallTime: "01:30", adjustment: .ambiguousFirstOccurrence),
        AdjustmentCase(text: "tomorrow at 2:30am", reference: sydneyAutumn, zone: TZ.sydney,
                       start: "2026-04-05T02:30:00+11:00", wallTime: "02:30", adjustment: .ambiguousFirstOccurrence),
        AdjustmentCase(text: "tomorrow at 2:30am", reference: sydneySpring, zone: TZ.sydney,
                       start: "2026-10-04T03:30:00+11:00", wallTime: "03:30", adjustment: .skippedForward(minutes: 60)),
        AdjustmentCase(text: "tomorrow at 3:30am", reference: sydneySpring, zone: TZ.sydney,
                       start: "2026-10-04T03:30:00+11:00", wallTime: "03:30", adjustment: nil),
    ]

    @Test(arguments: adjustmentsCases) func nonexistentAndRepeatedWallTimes(_ c: AdjustmentCase) throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: c.zone)))
        let found = resolver.resolve(c.text, reference: try ReferenceInstant.parse(c.reference))
        try #require(found.count == 1)
        #expect(found[0].startISO == c.start)
        #expect(found[0].time?.iso == c.wallTime)
        #expect(found[0].wallTimeAdjustment == c.adjustment)
        #expect(found[0].start == (try ReferenceInstant.parse(c.start)))
    }
}
