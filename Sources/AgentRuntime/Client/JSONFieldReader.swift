import Core

/// A decoding failure at a JSON path, e.g. `choices[0].message.tool_calls[1].function.name: missing`.
struct JSONFieldError: Error, Sendable, CustomStringConvertible {
    let path: String
    let message: String
    var description: String { "\(path.isEmpty ? "$" : path): \(message)" }
}

/// Reads fields of a JSON object, strictly for required ones and leniently (ignoring extras) otherwise,
/// so errors name the exact path that was wrong.
struct JSONFieldReader {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    private func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func object() throws -> JSONObject {
        guard let object = value.objectValue else {
            throw JSONFieldError(path: path, message: "expected an object, found \(value.typeName)")
        }
        return object
    }

    /// The field, or nil when absent or null.
    func optional(_ key: String) throws -> JSONFieldReader? {
        guard let field = try object()[key], !field.isNull else { return nil }
        return JSONFieldReader(field, path: childPath(key))
    }

    func required(_ key: String) throws -> JSONFieldReader {
        guard let field = try optional(key) else { throw JSONFieldError(path: childPath(key), message: "missing") }
        return field
    }

    func string() throws -> String {
        guard let s = value.stringValue else { throw JSONFieldError(path: path, message: "expected a string, found \(value.typeName)") }
        return s
    }

    func int() throws -> Int {
        guard let i = value.integerValue, let n = Int(exactly: i) else {
            throw JSONFieldError(path: path, message: "expected an integer, found \(value.typeName)")
        }
        return n
    }

    func array() throws -> [JSONFieldReader] {
        guard let items = value.arrayValue else { throw JSONFieldError(path: path, message: "expected an array, found \(value.typeName)") }
        return items.enumerated().map { JSONFieldReader($0.element, path: "\(path)[\($0.offset)]") }
    }

    func requiredString(_ key: String) throws -> String { try required(key).string() }
    func optionalString(_ key: String) throws -> String? { try optional(key)?.string() }
    func requiredInt(_ key: String) throws -> Int { try required(key).int() }
    func optionalInt(_ key: String) throws -> Int? { try optional(key)?.int() }
}
