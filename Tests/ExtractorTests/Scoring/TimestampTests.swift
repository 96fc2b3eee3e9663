import Foundation
import Testing
@testable import Extractors

@Suite("Timestamp")
struct TimestampTests {
    @Test func parsesOffsetsAndFractions() throws {
        let ny = try #require(Timestamp(iso: "2026-03-02T08:14:00-05:00"))
        let utc = try #require(Timestamp(iso: "2026-03-02T13:14:00Z"))
        #expect(ny.date == utc.date)
        #expect(ny.utcOffsetSeconds == -18_000)
        let kolkata = try #require(Timestamp(iso: "2026-07-06T18:00:30.5+05:30"))
        #expect(kolkata.date.timeIntervalSince1970 == 1_783_341_030.5)
        #expect(Timestamp(iso: "2026-03-02T08:14-05:00") != nil)
    }

    @Test func rejectsMissingOffsetsAndImpossibleValues() {
        for bad in ["2026-03-02T08:14:00", "2026-02-30T08:14:00Z", "2026-03-02T24:00:00Z", "2026-03-02 08:14:00Z",
                    "2026-03-02T08:14:00+5:30", "2026-03-02T08:14:00Zjunk", "2026-03-02T08:14:00."] {
            #expect(Timestamp(iso: bad) == nil, "\(bad)")
        }
    }

    @Test func localDateDependsOnTheZone() throws {
        let t = try #require(Timestamp(iso: "2026-05-14T22:30:00-07:00"))
        #expect(t.localDate(in: TimeZone(identifier: "America/Los_Angeles")!).iso == "2026-05-14")
        #expect(t.localDate(in: TimeZone(identifier: "America/New_York")!).iso == "2026-05-15")
    }
}
