import Core
import Foundation
import Testing

/// Dates and times are written without `String(format:)` (issue 15); the text is the formatter's.
@Suite struct ZeroPaddedTests {
    @Test func sameTextAsTheFormatter() {
        for value in [0, 1, 9, 10, 59, 99, 100, 999, 1000, 2026, 9999, 10000, 123_456, -1, -12, -2026] {
            for width in [2, 4] {
                #expect(zeroPadded(value, width) == String(format: "%0\(width)d", value), "\(value) \(width)")
            }
        }
    }

    @Test func isoTextsAsBefore() throws {
        for (y, m, d) in [(2026, 3, 7), (999, 12, 31), (9999, 1, 1), (1, 1, 1)] {
            #expect(try #require(LocalDate(year: y, month: m, day: d)).iso == String(format: "%04d-%02d-%02d", y, m, d))
        }
        for (h, m, s) in [(0, 0, 0), (9, 5, 0), (23, 59, 59), (7, 30, 1)] {
            let time = try #require(LocalTime(hour: h, minute: m, second: s))
            let reference = s == 0 ? String(format: "%02d:%02d", h, m) : String(format: "%02d:%02d:%02d", h, m, s)
            #expect(time.iso == reference)
        }
    }
}
