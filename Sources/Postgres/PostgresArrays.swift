package import Core
package import Foundation

/// Element types allowed in Postgres arrays (`text[]`, `uuid[]`, `int[]`...).
package protocol PostgresArrayElement: PostgresTextCodable {}
extension String: PostgresArrayElement {}
extension Int: PostgresArrayElement {}
extension Int64: PostgresArrayElement {}
extension Double: PostgresArrayElement {}
extension Bool: PostgresArrayElement {}
extension UUID: PostgresArrayElement {}
extension LocalDate: PostgresArrayElement {}

extension Array: PostgresEncodable where Element: PostgresArrayElement {
    /// Every element quoted and escaped: `{"a","b \"c\""}`.
    package var postgresText: String? {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, element) in enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            PostgresArrayText.appendEscaped(element.postgresValue, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Array: PostgresDecodable where Element: PostgresArrayElement {
    package init(postgresText text: String?) throws(PostgresDecodingFailure) {
        guard let text else { throw PostgresDecodingFailure("unexpected NULL for an array; decode as an Optional to allow it") }
        var result: [Element] = []
        for item in try PostgresArrayText.elements(of: text) {
            guard let item else { throw PostgresDecodingFailure("array contains NULL, which [\(Element.self)] cannot hold") }
            guard let value = Element(postgresValue: item) else {
                throw PostgresDecodingFailure("array element '\(item.prefix(80))' is not a valid \(Element.postgresTypeName)")
            }
            result.append(value)
        }
        self = result
    }
}

/// Parses the text output of one-dimensional arrays.
enum PostgresArrayText {
    /// The element's UTF-8 with a backslash before every backslash and `"` byte. Byte-wise, so a quote followed by a
    /// combining mark is escaped too (a character-wise replace would leave it bare and end the quoted element early).
    static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
    }

    static func elements(of text: String) throws(PostgresDecodingFailure) -> [String?] {
        var chars = Substring(text)
        // Arrays with non-default bounds print as "[0:2]={...}".
        if chars.first == "[", let equals = chars.firstIndex(of: "=") { chars = chars[chars.index(after: equals)...] }
        guard chars.first == "{", chars.last == "}" else { throw PostgresDecodingFailure("'\(text.prefix(80))' is not an array") }
        let body = chars.dropFirst().dropLast()
        if body.isEmpty { return [] }
        var items: [String?] = []
        var current = ""
        var quoted = false
        var wasQuoted = false
        var escaping = false
        for ch in body {
            if escaping { current.append(ch); escaping = false; continue }
            switch ch {
            case "\\": escaping = true
            case "\"": quoted.toggle(); wasQuoted = true
            case "{" where !quoted: throw PostgresDecodingFailure("multi-dimensional arrays are not supported")
            case "," where !quoted:
                items.append(!wasQuoted && current.uppercased() == "NULL" ? nil : current)
                current = ""
                wasQuoted = false
            default: current.append(ch)
            }
        }
        items.append(!wasQuoted && current.uppercased() == "NULL" ? nil : current)
        return items
    }
}
