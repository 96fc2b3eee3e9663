import Chrono
import Foundation

/// Parses the instant a message was sent, written as ISO 8601 with an explicit offset
/// (`2026-03-08T09:30:00-05:00`, `2026-03-08T14:30Z`).
///
/// An offset is required: a reference without one would silently be read in some default zone,
/// which shifts "today" for every expression resolved against it.
public enum ReferenceInstant {
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let input: String
        public let reason: String
        public var description: String {
            "invalid reference '\(input)': \(reason) (expected YYYY-MM-DDTHH:MM[:SS[.fff]] followed by Z or ±HH:MM)"
        }
    }

    public static func parse(_ text: String) throws(ParseError) -> Date {
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason) }
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw fail("no 'T' between date and time") }
        guard let date = LocalDate(iso: parts[0]) else { throw fail("'\(parts[0])' is not a real YYYY-MM-DD date") }

        var clock = Substring(parts[1])
        let offsetSeconds: Int
        if clock.hasSuffix("Z") || clock.hasSuffix("z") {
            offsetSeconds = 0
            clock = clock.dropLast()
        } else if let signIndex = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offsetText = clock[clock.index(after: signIndex)...]
            let pieces = offsetText.contains(":") ? offsetText.split(separator: ":").map(String.init)
                : offsetText.count == 4 ? [String(offsetText.prefix(2)), String(offsetText.suffix(2))] : []
            guard pieces.count == 2, pieces.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
                  let h = Int(pieces[0]), let m = Int(pieces[1]), h <= 18, m < 60 else {
                throw fail("offset '\(clock[signIndex...])' is not ±HH:MM")
            }
            offsetSeconds = (clock[signIndex] == "-" ? -1 : 1) * (h * 3600 + m * 60)
            clock = clock[..<signIndex]
        } else {
            throw fail("missing time zone offset (add Z or ±HH:MM)")
        }

        var fraction = 0.0
        if let dot = clock.firstIndex(of: ".") {
            guard let value = Double("0" + clock[dot...]) else { throw fail("bad fractional seconds") }
            fraction = value
            clock = clock[..<dot]
        }
        let padded = clock.count == 5 ? clock + ":00" : clock
        guard padded.count == 8, let time = LocalTime(iso: padded) else { throw fail("'\(clock)' is not HH:MM or HH:MM:SS") }
        let seconds = date.daysSinceEpoch * 86_400 + time.secondsSinceMidnight - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }
}
