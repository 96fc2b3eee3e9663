import Foundation
import Testing
@testable import Core

@Suite struct LocalDateTests {
    /// The arithmetic date of an instant (issue 15: a `Calendar` per call) equals Foundation's Gregorian calendar's,
    /// across zones with DST, half- and quarter-hour offsets, the date line, midnights, negative and fractional
    /// instants, and the fallback range.
    @Test func dateOfAnInstantMatchesTheCalendar() throws {
        let zones = try ["UTC", "America/New_York", "America/Los_Angeles", "Europe/London", "Asia/Kolkata", "Asia/Kathmandu",
                         "Australia/Lord_Howe", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/St_Johns", "Pacific/Chatham"]
            .map { try #require(TimeZone(identifier: $0)) } + [TimeZone(secondsFromGMT: -12 * 3600)!, TimeZone(secondsFromGMT: 14 * 3600)!]
        var instants: [Double] = [0, -1, -0.5, 0.5, 86_399.999, 86_400, -86_400, -86_400.25, 1_772_457_240, 1_772_939_999.9,
                                  1_741_503_600, 1_762_063_200, 951_782_400, -11_676_096_000, -11_676_096_001, 253_370_764_799,
                                  253_370_764_800, -62_135_596_800, 32_503_680_000]
        // Every 7 h 13 min 17.25 s through 2024–2027 hits midnights, DST changes and month ends in every zone.
        var t = 1_704_067_200.0
        while t < 1_830_297_600 { instants.append(t); t += 25_997.25 }
        for zone in zones {
            for seconds in instants {
                let date = Date(timeIntervalSince1970: seconds)
                #expect(LocalDate(date, in: zone) == LocalDate(calendarDate: date, in: zone), "\(zone.identifier) \(seconds)")
            }
            #expect(LocalDate(.distantPast, in: zone) == LocalDate(calendarDate: .distantPast, in: zone))
            #expect(LocalDate(.distantFuture, in: zone) == LocalDate(calendarDate: .distantFuture, in: zone))
        }
    }

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
