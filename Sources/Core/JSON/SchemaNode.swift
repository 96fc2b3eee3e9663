import Foundation

/// A compiled schema: keywords with their arguments parsed once, subschemas as indices into `CompiledSchema.nodes`
/// (indices rather than references, so `$ref` cycles are plain integers and the whole tree stays a value type).
struct SchemaNode: Sendable {
    /// OpenAPI 3.0's `nullable: true`, still used throughout OpenAI's description: null is accepted outright.
    var acceptsNull = false
    var keywords: [SchemaKeyword] = []
}

struct CompiledSchema: Sendable {
    var nodes: [SchemaNode]
    var rootIndex: Int
}

/// The JSON Schema type names; `integer` is a subset of `number`.
struct JSONTypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = JSONTypeSet(rawValue: 1 << 0)
    static let boolean = JSONTypeSet(rawValue: 1 << 1)
    static let integer = JSONTypeSet(rawValue: 1 << 2)
    static let number = JSONTypeSet(rawValue: 1 << 3)
    static let string = JSONTypeSet(rawValue: 1 << 4)
    static let array = JSONTypeSet(rawValue: 1 << 5)
    static let object = JSONTypeSet(rawValue: 1 << 6)

    static let names: [(String, JSONTypeSet)] = [
        ("string", .string), ("number", .number), ("integer", .integer), ("boolean", .boolean),
        ("object", .object), ("array", .array), ("null", .null),
    ]

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init?(name: String) {
        guard let match = Self.names.first(where: { $0.0 == name }) else { return nil }
        self = match.1
    }

    func admits(_ value: JSONValue) -> Bool {
        switch value {
        case .null: contains(.null)
        case .bool: contains(.boolean)
        case .string: contains(.string)
        case .array: contains(.array)
        case .object: contains(.object)
        case .integer: contains(.integer) || contains(.number)
        case .number: contains(.number) || (contains(.integer) && value.typeName == "integer")
        }
    }

    /// "string", "string or null", "integer, string or null".
    var readable: String {
        let listed = Self.names.filter { contains($0.1) }.map(\.0)
        guard listed.count > 1 else { return listed.first ?? "nothing" }
        return listed.dropLast().joined(separator: ", ") + " or " + listed.last!
    }
}

/// A compiled `pattern`; compiled once so validation never re-parses a regex.
struct CompiledPattern: @unchecked Sendable {
    // NSRegularExpression is immutable and documented thread-safe; it is only not marked Sendable on every platform.
    let source: String
    let regex: NSRegularExpression

    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// The string formats that are asserted; every other `format` value is an annotation.
enum StringFormat: String, Sendable {
    case date, time
    case dateTime = "date-time"
}

struct ObjectRules: Sendable {
    var properties: [String: Int] = [:]
    var patternProperties: [(CompiledPattern, Int)] = []
    var additionalProperties: Int?
    /// `additionalProperties: false`, reported as one clear "unexpected property" error per extra key.
    var forbidsAdditional = false
}

enum SchemaKeyword: Sendable {
    case alwaysFalse
    case types(JSONTypeSet)
    case enumeration(Set<SchemaEquatableValue>, listed: [JSONValue])
    case constant(SchemaEquatableValue, listed: JSONValue)
    case object(ObjectRules)
    case required([String])
    case minProperties(Int)
    case maxProperties(Int)
    case propertyNames(Int)
    case dependentRequired([(String, [String])])
    case dependentSchemas([(String, Int)])
    case array(prefixItems: [Int], items: Int?)
    case minItems(Int)
    case maxItems(Int)
    case uniqueItems
    case contains(Int, min: Int, max: Int?)
    case minLength(Int)
    case maxLength(Int)
    case pattern(CompiledPattern)
    case format(StringFormat)
    case minimum(JSONValue)
    case maximum(JSONValue)
    case exclusiveMinimum(JSONValue)
    case exclusiveMaximum(JSONValue)
    case multipleOf(JSONValue)
    case allOf([Int])
    case anyOf([Int])
    case oneOf([Int])
    case not(Int)
    case conditional(if: Int, then: Int?, else: Int?)
    case ref(Int, String)
}
