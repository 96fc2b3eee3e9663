package import Foundation

/// Any JSON document, kept exactly as parsed so it can be validated, compared and re-encoded without loss.
///
/// Integers and other numbers stay apart (`.integer` vs `.number`) because JSON Schema's `integer`
/// type and `multipleOf` need to know; object keys keep their insertion order so rendering is stable.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An ordered JSON object: keys keep the order they were written in, lookups are by key.
package struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    package private(set) var keys: [String] = []
    private var storage: [String: JSONValue] = [:]

    package init() {}

    package init(_ pairs: [(String, JSONValue)]) {
        for (key, value) in pairs { self[key] = value }
    }

    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    package subscript(key: String) -> JSONValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    package func makeIterator() -> AnyIterator<(key: String, value: JSONValue)> {
        var index = 0
        return AnyIterator {
            guard index < keys.count else { return nil }
            defer { index += 1 }
            let key = keys[index]
            return (key, storage[key]!)
        }
    }

    /// Equality ignores key order, as JSON does.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.storage == rhs.storage }
    package func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

// MARK: - Accessors

extension JSONValue {
    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    package var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    package var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    package var isNull: Bool { self == .null }

    /// The value as a Double for either numeric case.
    package var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// The value as an integer when it is integral (JSON Schema counts 1.0 as an integer).
    package var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d) where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
        default: nil
        }
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { o[key] } else { nil }
    }

    package subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { a[index] } else { nil }
    }

    /// The JSON type name as JSON Schema spells it ("integer" for integral numbers).
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number(let d): d.rounded() == d ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

// MARK: - Parsing and serialization

package struct JSONParseError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package let offset: Int
    package var description: String { "invalid JSON at byte \(offset): \(message)" }
}

extension JSONValue {
    /// Parses UTF-8 JSON text. Rejects trailing garbage, so a truncated or padded model answer is an error.
    package static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        return try parser.parseDocument()
    }

    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Compact JSON; with `sortedKeys`, object keys are sorted so equal values serialize identically (cache keys).
    package func serialized(sortedKeys: Bool = false, pretty: Bool = false) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys, pretty: pretty), as: UTF8.self)
    }

    package func serializedData(sortedKeys: Bool = false) -> Data { Data(serializedBytes(sortedKeys: sortedKeys, pretty: false)) }

    /// Written as UTF-8 bytes, which is much cheaper than appending to a `String` scalar by scalar.
    private func serializedBytes(sortedKeys: Bool, pretty: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: 0)
        return out
    }

    private func write(to out: inout [UInt8], sortedKeys: Bool, pretty: Bool, indent: Int) {
        func newline(_ level: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: 2 * level))
        }
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .number(let d):
            if d.isFinite, d.rounded() == d, abs(d) < 1e15 {
                out.append(contentsOf: String(Int64(d)).utf8)
            } else if d.isFinite {
                out.append(contentsOf: "\(d)".utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(indent + 1) }
                item.write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            let keys = sortedKeys ? object.keys.sorted() : object.keys
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(indent + 1) }
                JSONValue.writeString(key, to: &out)
                if pretty { out.append(contentsOf: ": ".utf8) } else { out.append(UInt8(ascii: ":")) }
                object[key]!.write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as short or `\u00XX` escapes, U+2028 and U+2029 as
    /// `\u2028`/`\u2029` (they end a line in JavaScript); every other byte copied.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : UInt8(ascii: "a") + nibble - 10 }

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                case 0x00..<0x20:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigit(byte >> 4), hexDigit(byte & 0xF)])
                case 0xE2 where index + 1 < bytes.count && bytes[index] == 0x80 && (bytes[index + 1] == 0xA8 || bytes[index + 1] == 0xA9):
                    // U+2028 / U+2029.
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x32, 0x30, 0x32, bytes[index + 1] == 0xA8 ? 0x38 : 0x39])
                    index += 2
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    package var description: String { serialized() }
}

// MARK: - Codable bridge

extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let i = try? container.decode(Int64.self) { self = .integer(i) }
        else if let d = try? container.decode(Double.self) { self = .number(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else if let o = try? container.decode([String: JSONValue].self) {
            // Keyed containers lose order; sort for determinism.
            self = .object(JSONObject(o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .integer(let i): try container.encode(i)
        case .number(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o):
            var dict: [String: JSONValue] = [:]
            for (k, v) in o { dict[k] = v }
            try container.encode(dict)
        }
    }
}

extension JSONValue {
    /// Decodes a Codable value from this JSON (through its serialized text, so Foundation's rules apply).
    package func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: serializedData())
    }

    /// Encodes a Codable value into a JSONValue, keeping the encoder's key order.
    package static func encode<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) throws -> JSONValue {
        try parse(encoder.encode(value))
    }
}
