package import Foundation

/// The package's one ISO 8601 / RFC 3339 codec for instants: every date-time the jobs write (prompts, tool results,
/// reports, Postgres binds, idempotency keys) and read (fixtures, model arguments, options, Postgres output) goes
/// through here. Written without `ISO8601DateFormatter`: that class is not `Sendable`, and building one per call
/// cost 150-177 µs on Linux (a prompt renders one per message); this takes about a microsecond from any thread.
///
/// The readers of the package accept slightly different spellings (Postgres prints `2026-03-02 13:14:00+00`, a
/// model may drop the seconds), so parsing takes a ``Grammar`` naming what one reader accepts; the scanner is shared.
package enum ISO8601Instant {
    // MARK: Writing

    /// How an instant is written.
    package struct Style: Sendable, Hashable {
        package enum Precision: Sendable, Hashable {
            /// `HH:MM`, seconds floored.
            case minutes
            /// `HH:MM:SS`, fraction floored.
            case seconds
            /// `HH:MM:SS.ffffff`, rounded to the microsecond.
            case microseconds
        }

        package var precision: Precision
        /// A zero offset written `Z` (RFC 3339's and `ISO8601DateFormatter`'s choice), or `+00:00`.
        var zeroOffsetAsZ: Bool

        package init(precision: Precision, zeroOffsetAsZ: Bool) {
            self.precision = precision
            self.zeroOffsetAsZ = zeroOffsetAsZ
        }

        /// `2026-03-08T09:30:00-04:00`, `2026-03-08T13:30:00Z`: what `ISO8601DateFormatter` writes with
        /// `.withInternetDateTime` (prompts, reports).
        package static let internet = Style(precision: .seconds, zeroOffsetAsZ: true)
        /// `2026-03-08T13:30:00+00:00`: always a numeric offset (the tools' results, wall-clock text).
        package static let numericOffset = Style(precision: .seconds, zeroOffsetAsZ: false)
        /// `2026-03-02T13:14:00.123456Z`: microseconds, which Postgres reads as an instant whatever the session zone.
        package static let microseconds = Style(precision: .microseconds, zeroOffsetAsZ: true)
        /// `2026-03-08T14:05Z`: to the minute (idempotency keys).
        package static let minutes = Style(precision: .minutes, zeroOffsetAsZ: true)
    }

    /// The instant as the wall clock of `timeZone` reads it, with the zone's offset at that instant.
    package static func string(_ date: Date, in timeZone: TimeZone, style: Style = .internet) -> String {
        let interval = date.timeIntervalSince1970
        var whole = Int(interval.rounded(.down))
        var micros = 0
        if style.precision == .microseconds {
            micros = Int(((interval - Double(whole)) * 1_000_000).rounded())
            if micros >= 1_000_000 { whole += 1; micros -= 1_000_000 }
        }
        let offset = timeZone.secondsFromGMT(for: date)
        let local = whole + offset
        let days = Int((Double(local) / 86_400).rounded(.down))
        let second = local - days * 86_400
        let day = LocalDate(daysSinceEpoch: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        if day.year < 0 { bytes.append(UInt8(ascii: "-")) }
        append(abs(day.year), width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day.month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day.day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(second / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(second % 3600 / 60, width: 2, to: &bytes)
        if style.precision != .minutes {
            bytes.append(UInt8(ascii: ":"))
            append(second % 60, width: 2, to: &bytes)
        }
        if style.precision == .microseconds {
            bytes.append(UInt8(ascii: "."))
            append(micros, width: 6, to: &bytes)
        }
        if offset == 0, style.zeroOffsetAsZ {
            bytes.append(UInt8(ascii: "Z"))
        } else {
            let minutes = abs(offset) / 60
            bytes.append(UInt8(ascii: offset < 0 ? "-" : "+"))
            append(minutes / 60, width: 2, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            append(minutes % 60, width: 2, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The instant in UTC: `2026-03-08T13:30:00Z` by default, what `ISO8601DateFormatter()` writes.
    package static func string(_ date: Date, style: Style = .internet) -> String { string(date, in: utc, style: style) }

    private static let utc = TimeZone(identifier: "UTC")!

    // MARK: Reading

    /// What one reader accepts. Every grammar requires `YYYY-MM-DD`, a separator and `HH:MM`; the rest varies.
    package struct Grammar: Sendable, Hashable {
        /// The bytes accepted between date and time.
        package var separators: [UInt8]
        /// Whether `HH:MM` alone is a time (else `HH:MM:SS` is required).
        var secondsOptional: Bool
        /// The marks that start fractional seconds (which follow the seconds).
        var fractionMarks: [UInt8]
        /// Whether the mark may be followed by no digit (Postgres never writes that, but its reader took it).
        var emptyFraction: Bool
        /// Whether a missing offset means UTC (Postgres `timestamp` text) instead of a failure.
        var missingOffsetIsUTC: Bool
        /// Whether `±HHMM` is accepted beside `±HH:MM`.
        var compactOffset: Bool
        /// Whether `±HH` and `±HH:MM:SS` are accepted, with any number of digits each (Postgres's output).
        var postgresOffset: Bool
        /// The largest offset hour accepted.
        var maxOffsetHour: Int
        /// Whether 23:59:60 UTC, a leap second, is a valid time (RFC 3339 validation), and year 0000 a valid year.
        var rfc3339Extremes: Bool
        /// Whether spaces and tabs around the text are ignored.
        var trimsSpaces: Bool

        package init(separators: [UInt8] = [UInt8(ascii: "T"), UInt8(ascii: "t")], secondsOptional: Bool = false,
                    fractionMarks: [UInt8] = [UInt8(ascii: ".")], emptyFraction: Bool = false, missingOffsetIsUTC: Bool = false,
                    compactOffset: Bool = false, postgresOffset: Bool = false, maxOffsetHour: Int = 23,
                    rfc3339Extremes: Bool = false, trimsSpaces: Bool = false) {
            self.separators = separators
            self.secondsOptional = secondsOptional
            self.fractionMarks = fractionMarks
            self.emptyFraction = emptyFraction
            self.missingOffsetIsUTC = missingOffsetIsUTC
            self.compactOffset = compactOffset
            self.postgresOffset = postgresOffset
            self.maxOffsetHour = maxOffsetHour
            self.rfc3339Extremes = rfc3339Extremes
            self.trimsSpaces = trimsSpaces
        }

        /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, `t`, `z` and a `,` fraction too: what
        /// `ISO8601DateFormatter` with `.withInternetDateTime` reads, and the default of ``parse(_:)``.
        package static let internet = Grammar(fractionMarks: [UInt8(ascii: "."), UInt8(ascii: ",")], compactOffset: true)
        /// RFC 3339 `date-time` exactly (JSON Schema's `format: date-time`): seconds, `±HH:MM`, leap seconds.
        package static let rfc3339 = Grammar(rfc3339Extremes: true)
        /// A labelled fixture's instants: seconds optional, `Z` or `±HH:MM`.
        package static let fixture = Grammar(secondsOptional: true)
        /// The instant a message was sent, as a user types it for `dates --reference`: an upper-case `T`, seconds
        /// optional, `±HH:MM` or `±HHMM` up to 18 hours.
        package static let reference = Grammar(separators: [UInt8(ascii: "T")], secondsOptional: true, compactOffset: true, maxOffsetHour: 18)
        /// A model's tool argument: as ``internet`` with the seconds optional, a space separator and spaces around.
        package static let lenient = Grammar(
            separators: [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")], secondsOptional: true,
            fractionMarks: [UInt8(ascii: "."), UInt8(ascii: ",")], compactOffset: true, trimsSpaces: true)
        /// Postgres's ISO output of `timestamptz` (`2026-03-02 13:14:00.123456+00`), whatever the session's zone.
        package static let postgres = Grammar(
            separators: [UInt8(ascii: " "), UInt8(ascii: "T")], emptyFraction: true, missingOffsetIsUTC: true, postgresOffset: true,
            maxOffsetHour: .max)
    }

    /// An instant read from text, with the offset the text gave (seconds east of UTC).
    package struct Parsed: Sendable, Hashable {
        package let date: Date
        package let utcOffsetSeconds: Int
    }

    /// Why text is not an instant in a grammar, with the part at fault, for messages that say where.
    package struct ParseFailure: Error, Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// No separator after the date (`text` is the whole input).
            case noSeparator
            /// Not a real `YYYY-MM-DD` date.
            case date
            /// Not `HH:MM[:SS]`, or bad fractional seconds.
            case time
            /// Date and time but no offset.
            case missingOffset
            /// An offset this grammar does not accept.
            case offset
        }

        package let kind: Kind
        /// The part of the input at fault.
        package let part: String
    }

    /// An instant in the ``Grammar/internet`` grammar, or nil (a missing offset included: without one the instant is
    /// unknown).
    package static func parse(_ text: String) -> Date? {
        try? parse(text, grammar: .internet).get().date
    }

    /// An instant in `grammar`, or what is wrong with the text.
    package static func parse(_ text: String, grammar: Grammar) -> Result<Parsed, ParseFailure> {
        var chars = Array(text.utf8)[...]
        if grammar.trimsSpaces {
            while let first = chars.first, first == 0x20 || first == 0x09 { chars.removeFirst() }
            while let last = chars.last, last == 0x20 || last == 0x09 { chars.removeLast() }
        }
        let start = chars.startIndex
        func fail(_ kind: ParseFailure.Kind, _ from: Int, _ to: Int? = nil) -> Result<Parsed, ParseFailure> {
            let lower = min(max(from, start), chars.endIndex)
            let upper = min(max(to ?? chars.endIndex, lower), chars.endIndex)
            return .failure(ParseFailure(kind: kind, part: String(decoding: chars[lower..<upper], as: UTF8.self)))
        }
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= chars.endIndex else { return nil }
            var value = 0
            for char in chars[at..<at + count] {
                guard char >= 0x30, char <= 0x39 else { return nil }
                value = value * 10 + Int(char - 0x30)
            }
            return value
        }
        func byte(_ at: Int) -> UInt8? { at < chars.endIndex ? chars[at] : nil }

        // The date, up to the separator.
        guard let separator = chars.firstIndex(where: { grammar.separators.contains($0) }) else { return fail(.noSeparator, start) }
        guard separator == start + 10, byte(start + 4) == UInt8(ascii: "-"), byte(start + 7) == UInt8(ascii: "-"),
              let year = number(start, 4), let month = number(start + 5, 2), let dayOfMonth = number(start + 8, 2),
              year >= (grammar.rfc3339Extremes ? 0 : 1), (1...12).contains(month),
              dayOfMonth >= 1, dayOfMonth <= LocalDate.daysInMonth(year: year, month: month)
        else { return fail(.date, start, separator) }

        // The time.
        let clock = separator + 1
        let offsetStart = chars[clock...].firstIndex(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "z")
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) ?? chars.endIndex
        guard let hour = number(clock, 2), byte(clock + 2) == UInt8(ascii: ":"), let minute = number(clock + 3, 2),
              hour <= 23, minute <= 59 else { return fail(.time, clock, offsetStart) }
        var index = clock + 5
        var second = 0
        var fraction = 0.0
        if byte(index) == UInt8(ascii: ":") {
            guard let value = number(index + 1, 2), value <= (grammar.rfc3339Extremes ? 60 : 59) else { return fail(.time, clock, offsetStart) }
            second = value
            index += 3
            if let mark = byte(index), grammar.fractionMarks.contains(mark) {
                index += 1
                // Digits as one integer over a power of ten: the nearest double to the decimal, as `Double("0.fff")`.
                var numerator = 0.0
                var denominator = 1.0
                let digits = index
                while let char = byte(index), char >= 0x30, char <= 0x39 {
                    if denominator < 1e15 {
                        numerator = numerator * 10 + Double(char - 0x30)
                        denominator *= 10
                    }
                    index += 1
                }
                guard index > digits || grammar.emptyFraction else { return fail(.time, clock, offsetStart) }
                fraction = numerator / denominator
            }
        } else if !grammar.secondsOptional {
            return fail(.time, clock, offsetStart)
        }

        // The offset.
        var offset = 0
        switch byte(index) {
        case nil:
            guard grammar.missingOffsetIsUTC else { return fail(.missingOffset, start) }
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == chars.endIndex else { return fail(.offset, index) }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = chars[index] == UInt8(ascii: "-") ? -1 : 1
            guard let magnitude = offsetSeconds(chars[(index + 1)...], grammar), magnitude / 3600 <= grammar.maxOffsetHour
            else { return fail(.offset, index) }
            offset = sign * magnitude
        default:
            return fail(.time, clock)
        }
        if second == 60 {
            // A leap second is inserted at 23:59:60 UTC; local time is UTC plus the offset.
            let utcMinutes = ((hour * 60 + minute - offset / 60) % 1440 + 1440) % 1440
            guard utcMinutes == 23 * 60 + 59 else { return fail(.time, clock, offsetStart) }
        }
        let days = LocalDate.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return .success(Parsed(date: Date(timeIntervalSince1970: Double(seconds) + fraction), utcOffsetSeconds: offset))
    }

    /// The magnitude of an offset after its sign: `HH:MM` (or `HHMM`, or Postgres's `H[:M[:S]]`), or nil.
    private static func offsetSeconds(_ chars: ArraySlice<UInt8>, _ grammar: Grammar) -> Int? {
        if grammar.postgresOffset {
            let parts = chars.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
            else { return nil }
            let numbers = parts.map { $0.reduce(0) { $0 * 10 + Int($1 - 0x30) } }
            return numbers[0] * 3600 + (numbers.count > 1 ? numbers[1] * 60 : 0) + (numbers.count > 2 ? numbers[2] : 0)
        }
        let digits: [UInt8]
        if chars.count == 5, chars[chars.startIndex + 2] == UInt8(ascii: ":") {
            digits = Array(chars.prefix(2)) + Array(chars.suffix(2))
        } else if grammar.compactOffset, chars.count == 4 {
            digits = Array(chars)
        } else {
            return nil
        }
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let hour = Int(digits[0] - 0x30) * 10 + Int(digits[1] - 0x30)
        let minute = Int(digits[2] - 0x30) * 10 + Int(digits[3] - 0x30)
        guard hour <= 23, minute <= 59 else { return nil }
        return hour * 3600 + minute * 60
    }

    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if digits.count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
        bytes.append(contentsOf: digits.reversed())
    }
}
