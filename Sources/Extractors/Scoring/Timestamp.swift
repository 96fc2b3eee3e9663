package import Core
package import Foundation

/// An ISO 8601 instant that must carry its UTC offset (`2026-03-02T08:14:00-05:00` or `...Z`).
///
/// Kept with its text so reports show what the fixture says; read by Core/Time's codec in the fixture grammar, so a
/// missing offset is an error instead of a silent guess at the machine's time zone.
package struct Timestamp: Sendable, Hashable, Codable, CustomStringConvertible {
    package let text: String
    package let date: Date
    /// The offset written in the text, in seconds east of UTC.
    package let utcOffsetSeconds: Int

    /// Accepts `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)`; nil for anything else or an impossible date.
    package init?(iso text: String) {
        guard case .success(let instant) = ISO8601Instant.parse(text, grammar: .fixture) else { return nil }
        self.text = text
        self.utcOffsetSeconds = instant.utcOffsetSeconds
        self.date = instant.date
    }

    /// The calendar date of this instant in a time zone: what relative dates in a message resolve from.
    package func localDate(in timeZone: TimeZone) -> LocalDate { LocalDate(date, in: timeZone) }

    package var description: String { text }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Timestamp(iso: text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "'\(text)' is not an ISO 8601 date-time with a UTC offset"))
        }
        self = value
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
