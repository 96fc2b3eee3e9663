import Foundation
import Testing
@testable import Chrono

@Suite struct LocalDateTests {
    @Test func parsesOnlyRealDates() {
        #expect(LocalDate(iso: "2028-02-29")?.day == 29)
        #expect(LocalDate(iso: "2026-02-29") == nil)
        #expect(LocalDate(iso: "2026-13-01") == nil)
        #expect(LocalDate(iso: "2026-3-07") == nil)
    }

    @Test func epochArithmeticRoundTrips() {
        let d = LocalDate(iso: "2026-12-31")!
        #expect(d.adding(days: 1).iso == "2027-01-01")
        #expect(LocalDate(iso: "2024-02-28")!.adding(days: 1).iso == "2024-02-29")
        #expect(LocalDate(daysSinceEpoch: 0).iso == "1970-01-01")
        #expect(d.days(until: LocalDate(iso: "2027-03-01")!) == 60)
    }

    @Test func isoWeekdays() {
        #expect(LocalDate(iso: "2026-11-22")!.isoWeekday == 7)  // a Sunday
        #expect(LocalDate(iso: "2026-03-02")!.isoWeekday == 1)  // a Monday
    }

    @Test func dateInTimeZone() {
        let instant = Date(timeIntervalSince1970: 1_772_500_000)  // 2026-03-03T01:06:40Z
        #expect(LocalDate(instant, in: TimeZone(identifier: "UTC")!).iso == "2026-03-03")
        #expect(LocalDate(instant, in: TimeZone(identifier: "America/New_York")!).iso == "2026-03-02")
    }

    @Test func timesParse() {
        #expect(LocalTime(iso: "17:30")?.iso == "17:30")
        #expect(LocalTime(iso: "09:05:07.123")?.iso == "09:05:07")
        #expect(LocalTime(iso: "24:00") == nil)
        #expect(LocalTime(iso: "7:30") == nil)
    }
}
