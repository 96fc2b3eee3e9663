import Core
package import Foundation

/// Parses the instant a message was sent, written as ISO 8601 with an explicit offset
/// (`2026-03-08T09:30:00-05:00`, `2026-03-08T14:30Z`), with an error that says what is wrong.
///
/// An offset is required: a reference without one would silently be read in some default zone,
/// which shifts "today" for every expression resolved against it.
package enum ReferenceInstant {
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        package let input: String
        package let reason: String
        package var description: String {
            "invalid reference '\(input)': \(reason) (expected YYYY-MM-DDTHH:MM[:SS[.fff]] followed by Z or ±HH:MM)"
        }
    }

    package static func parse(_ text: String) throws(ParseError) -> Date {
        switch ISO8601Instant.parse(text, grammar: .reference) {
        case .success(let instant):
            return instant.date
        case .failure(let failure):
            let reason = switch failure.kind {
            case .noSeparator: "no 'T' between date and time"
            case .date: "'\(failure.part)' is not a real YYYY-MM-DD date"
            case .time: "'\(failure.part)' is not HH:MM or HH:MM:SS"
            case .missingOffset: "missing time zone offset (add Z or ±HH:MM)"
            case .offset: "offset '\(failure.part)' is not ±HH:MM"
            }
            throw ParseError(input: text, reason: reason)
        }
    }
}
