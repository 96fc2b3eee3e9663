import Core
import Foundation
import Testing

@Suite("ISO8601Instant writes and reads RFC 3339 as ISO8601DateFormatter did")
struct ISO8601InstantTests {
    /// The formatter the writer replaces, as MessageWindow used it.
    private func reference(_ date: Date, _ zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = zone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    @Test("the same text as ISO8601DateFormatter across zones, DST edges, offsets of 30 and 45 minutes, and old dates")
    func matchesFormatter() throws {
        let zones = ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham",
                     "America/St_Johns", "Australia/Lord_Howe", "Pacific/Kiritimati", "America/Adak"]
        var instants: [Double] = [0, -1, -86_401.5, 951_782_400, 1_772_953_200, 1_772_956_799.999, 1_793_512_800, 4_102_444_800]
        instants += Array(stride(from: 0.25, to: 3_000_000_000, by: 9_999_991.5))
        for name in zones {
            let zone = try #require(TimeZone(identifier: name))
            for seconds in instants {
                let date = Date(timeIntervalSince1970: seconds)
                #expect(ISO8601Instant.string(date, in: zone) == reference(date, zone), "\(name) \(seconds)")
            }
        }
    }

    @Test("the UTC writer is ISO8601DateFormatter() with its default options")
    func matchesDefaultFormatter() {
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -100_000_000.25, to: 3_000_000_000, by: 77_777_777.5) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISO8601Instant.string(date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test("reads back what it writes, to the second")
    func roundTrip() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        for seconds in stride(from: -100_000_000.0, to: 2_000_000_000, by: 7_777_777) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISO8601Instant.parse(ISO8601Instant.string(date, in: zone)) == date)
        }
    }

    @Test("parses Z, offsets with and without a colon, and fractions; refuses text without an offset or out of range")
    func parsing() {
        #expect(ISO8601Instant.parse("2026-03-04T12:00:00Z") == Date(timeIntervalSince1970: 1_772_625_600))
        #expect(ISO8601Instant.parse("2026-03-04T07:00:00-05:00") == Date(timeIntervalSince1970: 1_772_625_600))
        #expect(ISO8601Instant.parse("2026-03-04T17:30:00+0530") == Date(timeIntervalSince1970: 1_772_625_600))
        #expect(ISO8601Instant.parse("2026-03-04T12:00:00.250Z") == Date(timeIntervalSince1970: 1_772_625_600.25))
        for bad in ["2026-03-04T12:00:00", "2026-03-04 12:00:00Z", "2026-02-30T12:00:00Z", "2026-03-04T24:00:00Z",
                    "2026-03-04T12:00:00+05", "2026-03-04T12:00:00Zjunk", "2026-03-04T12:00:00.Z", ""] {
            #expect(ISO8601Instant.parse(bad) == nil, "\(bad)")
        }
    }
}
