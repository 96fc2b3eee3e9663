package import Core
package import Foundation

/// A Swift value that can be bound to a `$n` parameter. Values travel as text, separately from the SQL.
package protocol PostgresEncodable: Sendable {
    /// The value in Postgres's text input format, or nil for NULL.
    var postgresText: String? { get }
}

/// A Swift value that can be read from a result column.
package protocol PostgresDecodable: Sendable {
    /// `text` is the column's text output, nil for NULL.
    init(postgresText text: String?) throws(PostgresDecodingFailure)
}

/// Most types: a non-NULL text value parsed one way.
package protocol PostgresTextCodable: PostgresEncodable, PostgresDecodable {
    static var postgresTypeName: String { get }
    init?(postgresValue: String)
    var postgresValue: String { get }
}

extension PostgresTextCodable {
    package var postgresText: String? { postgresValue }

    package init(postgresText text: String?) throws(PostgresDecodingFailure) {
        guard let text else { throw PostgresDecodingFailure("unexpected NULL for \(Self.postgresTypeName); decode as an Optional to allow it") }
        guard let value = Self(postgresValue: text) else {
            throw PostgresDecodingFailure("'\(text.prefix(80))' is not a valid \(Self.postgresTypeName)")
        }
        self = value
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    package var postgresText: String? { self?.postgresText ?? nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    package init(postgresText text: String?) throws(PostgresDecodingFailure) {
        self = try text.map { (t: String) throws(PostgresDecodingFailure) -> Wrapped in try Wrapped(postgresText: t) }
    }
}

extension String: PostgresTextCodable {
    package static var postgresTypeName: String { "text" }
    package init?(postgresValue: String) { self = postgresValue }
    package var postgresValue: String { self }
}

extension Int: PostgresTextCodable {
    package static var postgresTypeName: String { "integer" }
    package init?(postgresValue: String) { self.init(postgresValue) }
    package var postgresValue: String { String(self) }
}

extension Int32: PostgresTextCodable {
    package static var postgresTypeName: String { "integer" }
    package init?(postgresValue: String) { self.init(postgresValue) }
    package var postgresValue: String { String(self) }
}

extension Int64: PostgresTextCodable {
    package static var postgresTypeName: String { "bigint" }
    package init?(postgresValue: String) { self.init(postgresValue) }
    package var postgresValue: String { String(self) }
}

extension Double: PostgresTextCodable {
    package static var postgresTypeName: String { "double precision" }
    package init?(postgresValue: String) {
        switch postgresValue {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(postgresValue)
        }
    }
    package var postgresValue: String {
        if isNaN { return "NaN" }
        if isInfinite { return self > 0 ? "Infinity" : "-Infinity" }
        return "\(self)"
    }
}

extension Bool: PostgresTextCodable {
    package static var postgresTypeName: String { "boolean" }
    package init?(postgresValue: String) {
        switch postgresValue {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
    package var postgresValue: String { self ? "true" : "false" }
}

extension UUID: PostgresTextCodable {
    package static var postgresTypeName: String { "uuid" }
    /// The canonical 36-character form (Postgres prints it lower case) is read byte-wise; anything else goes to
    /// Foundation's parser, which is slow on a hot path (`sscanf`).
    package init?(postgresValue: String) {
        if let uuid = UUIDText.parse(postgresValue) {
            self = uuid
        } else {
            self.init(uuidString: postgresValue)
        }
    }
    /// Lower case, as Postgres prints it, so text comparisons agree. Written byte-wise: `uuidString` formats with
    /// `snprintf`.
    package var postgresValue: String { UUIDText.lowercase(self) }
}

/// The canonical text form of a UUID without Foundation's `snprintf`/`sscanf` (both showed in the scan's profile).
enum UUIDText {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `uuidString.lowercased()`, byte by byte.
    static func lowercase(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for (i, byte) in raw.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = hex[Int(byte >> 4)]
                    out[at + 1] = hex[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }

    /// The UUID of exactly 36 characters `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (hex digits of either case); nil for
    /// anything else.
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var value: [UInt8] = []
            value.reserveCapacity(16)
            var i = 0
            while i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard bytes[i] == UInt8(ascii: "-") else { return nil }
                    i += 1
                    continue
                }
                guard let high = digit(bytes[i]), let low = digit(bytes[i + 1]) else { return nil }
                value.append(high << 4 | low)
                i += 2
            }
            return UUID(uuid: (value[0], value[1], value[2], value[3], value[4], value[5], value[6], value[7],
                               value[8], value[9], value[10], value[11], value[12], value[13], value[14], value[15]))
        }
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension LocalDate: PostgresTextCodable {
    package static var postgresTypeName: String { "date" }
    package init?(postgresValue: String) { self.init(iso: postgresValue) }
    package var postgresValue: String { iso }
}

extension LocalTime: PostgresTextCodable {
    package static var postgresTypeName: String { "time" }
    package init?(postgresValue: String) { self.init(iso: postgresValue) }
    package var postgresValue: String { zeroPadded(hour, 2) + ":" + zeroPadded(minute, 2) + ":" + zeroPadded(second, 2) }
}

extension Date: PostgresTextCodable {
    package static var postgresTypeName: String { "timestamptz" }
    package init?(postgresValue: String) {
        guard case .success(let instant) = ISO8601Instant.parse(postgresValue, grammar: .postgres) else { return nil }
        self = instant.date
    }
    package var postgresValue: String { ISO8601Instant.string(self, style: .microseconds) }
}

extension JSONValue: PostgresTextCodable {
    package static var postgresTypeName: String { "jsonb" }
    package init?(postgresValue: String) {
        guard let value = try? JSONValue.parse(postgresValue) else { return nil }
        self = value
    }
    package var postgresValue: String { serialized() }
}
