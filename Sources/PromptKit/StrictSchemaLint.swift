import Foundation
package import Core

/// Checks a JSON Schema against OpenAI Structured Outputs' strict-mode rules before a request is
/// ever sent: a schema that breaks them is rejected with a 400 at run time, every night.
///
/// Rules (OpenAI guide "Structured Outputs — Supported schemas"): the root is an object, not
/// `anyOf`; every object sets `additionalProperties: false` and lists every property in
/// `required`; optional values are written `"type": ["string", "null"]`; only the supported
/// keywords (strings: `pattern`, `format` from a fixed list; numbers: `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; arrays: `items`, `minItems`, `maxItems`;
/// `enum`, `const`, `anyOf`, `$ref` into `$defs`, `description`, `title`); at most 10 levels of
/// object nesting, 5,000 properties, 1,000 enum values, 120,000 characters of names and enum/const
/// values, and 15,000 characters for a string enum of more than 250 values.
///
/// `minLength`, `maxLength` and `maxItems` are accepted as **locally enforced** caps: strict mode does not take
/// the string lengths, so `wireSchema(_:)` removes them from the schema sent to OpenAI, and the local validator
/// enforces them on every answer (a hostile server cannot store a 200 MB title). `maxItems` is left out of
/// OpenAI's wire schema too: the prompts' fingerprints hash that schema, and the caps are enforced here anyway.
/// Servers that compile the schema into a grammar (llama.cpp, vLLM) get `boundedWireSchema(_:)`, the caps
/// included, so a rambling model's answer ends within them.
package enum StrictSchemaLint {
    static let maxObjectDepth = 10
    package static let maxProperties = 5_000
    static let maxEnumValues = 1_000
    static let maxTotalStringLength = 120_000
    static let largeEnumThreshold = 250
    static let maxLargeEnumStringLength = 15_000
    static let supportedFormats: Set<String> = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]
    static let types: Set<String> = ["string", "number", "integer", "boolean", "object", "array", "null"]
    static let annotationKeywords: Set<String> = ["description", "title", "$comment"]
    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
        "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    ]

    /// Size caps the local validator enforces and `wireSchema` strips before sending to OpenAI.
    static let locallyEnforcedKeywords: Set<String> = ["minLength", "maxLength", "maxItems"]

    /// The schema as sent in strict mode: the same, without the locally enforced keywords.
    package static func wireSchema(_ schema: JSONValue) -> JSONValue {
        stripping(schema, locallyEnforcedKeywords)
    }

    /// The extractors' strict schema on the wire: also without annotations (`description`, `title`, `$comment`). Strict
    /// decoding needs only the structure, and the extractor prompts say what each field means, so the descriptions
    /// were the same words sent twice (about half of each schema's bytes, on every request). Property names are kept
    /// (`description` is also a field of calendar events).
    package static func compactWireSchema(_ schema: JSONValue) -> JSONValue {
        stripping(schema, locallyEnforcedKeywords.union(annotationKeywords))
    }

    /// The schema for a server that turns it into a grammar: every size cap kept, so the grammar bounds the
    /// answer's length. `compact` also drops annotations, as `compactWireSchema` does.
    package static func boundedWireSchema(_ schema: JSONValue, compact: Bool) -> JSONValue {
        compact ? stripping(schema, annotationKeywords) : schema
    }

    /// `schema` without `keywords` on any schema node (names inside `properties` and `$defs` are not keywords).
    static func stripping(_ schema: JSONValue, _ keywords: Set<String>) -> JSONValue {
        guard case .object(let node) = schema else {
            if case .array(let items) = schema { return .array(items.map { stripping($0, keywords) }) }
            return schema
        }
        var out = JSONObject()
        for (key, value) in node where !keywords.contains(key) {
            switch key {
            case "properties", "$defs":
                var map = JSONObject()
                for (name, child) in value.objectValue ?? JSONObject() { map[name] = stripping(child, keywords) }
                out[key] = value.objectValue == nil ? value : .object(map)
            case "items", "anyOf", "additionalProperties": out[key] = stripping(value, keywords)
            default: out[key] = value
            }
        }
        return .object(out)
    }

    /// One broken rule and where in the schema it is.
    package struct Finding: Sendable, Hashable, CustomStringConvertible {
        package let path: [JSONPathComponent]
        package let message: String
        /// `$.properties.events.items: message`
        package var description: String { "\(JSONPath.string(path)): \(message)" }
    }

    /// Every rule broken, each starting with the JSON path inside the schema (`$.properties.events...`).
    package static func problems(in schema: JSONValue) -> [String] {
        findings(in: schema).map(\.description)
    }

    /// The same as `problems(in:)` with paths kept structured (to map them to source lines).
    package static func findings(in schema: JSONValue) -> [Finding] {
        var linter = Linter(root: schema)
        linter.lintRoot()
        return linter.findings
    }

    private struct Linter {
        let root: JSONValue
        var findings: [Finding] = []
        var propertyCount = 0
        var enumValueCount = 0
        var stringLength = 0

        init(root: JSONValue) { self.root = root }

        mutating func report(_ path: [JSONPathComponent], _ message: String) {
            findings.append(Finding(path: path, message: message))
        }

        mutating func lintRoot() {
            guard let object = root.objectValue else {
                report([], "the schema must be a JSON object, found \(root.typeName)")
                return
            }
            if object["anyOf"] != nil { report([], "the root must be a plain object schema, not anyOf") }
            if object["type"] != .string("object") { report([], "the root must have \"type\": \"object\"") }
            if let defs = object["$defs"] {
                if let defsObject = defs.objectValue {
                    for (name, definition) in defsObject {
                        stringLength += name.count
                        lint(definition, at: [.key("$defs"), .key(name)], depth: 0)
                    }
                } else {
                    report([.key("$defs")], "$defs must be an object of schemas")
                }
            }
            lint(root, at: [], depth: 0)
            if propertyCount > maxProperties { report([], "\(propertyCount) object properties in total (limit \(maxProperties))") }
            if enumValueCount > maxEnumValues { report([], "\(enumValueCount) enum values in total (limit \(maxEnumValues))") }
            if stringLength > maxTotalStringLength {
                report([], "\(stringLength) characters of property names, definition names and enum/const values (limit \(maxTotalStringLength))")
            }
        }

        /// `depth` counts the objects enclosing this schema.
        mutating func lint(_ schema: JSONValue, at path: [JSONPathComponent], depth: Int) {
            guard let node = schema.objectValue else {
                report(path, "a schema must be an object, found \(schema.typeName)")
                return
            }
            for key in node.keys where !keywords.contains(key) && !annotationKeywords.contains(key) && !locallyEnforcedKeywords.contains(key) {
                if key == "nullable" {
                    report(path + [.key(key)], "\"nullable\" is not supported; write \"type\": [\"<type>\", \"null\"]")
                } else if key == "$defs" || key == "definitions" {
                    report(path + [.key(key)], "definitions belong in the root's $defs")
                } else {
                    report(path + [.key(key)], "unsupported keyword '\(key)' in strict mode")
                }
            }
            if node["$defs"] != nil, !path.isEmpty { report(path + [.key("$defs")], "$defs is only allowed at the root") }

            if let ref = node["$ref"] {
                lintRef(ref, at: path + [.key("$ref")])
                return
            }
            if let anyOf = node["anyOf"] {
                guard let branches = anyOf.arrayValue, !branches.isEmpty else {
                    report(path + [.key("anyOf")], "anyOf must be a non-empty array of schemas")
                    return
                }
                for (index, branch) in branches.enumerated() {
                    lint(branch, at: path + [.key("anyOf"), .index(index)], depth: depth)
                }
                return
            }
            let types = typeList(node, at: path)
            if types == nil, node["enum"] == nil, node["const"] == nil {
                report(path, "every schema needs \"type\" (or enum, const, anyOf, $ref)")
            }
            let typeSet = Set(types ?? [])
            lintEnumAndConst(node, at: path)
            lintKeywordTypes(node, types: typeSet, at: path)
            if typeSet.contains("object") { lintObject(node, at: path, depth: depth + 1) }
            if typeSet.contains("array") {
                if let items = node["items"] {
                    lint(items, at: path + [.key("items")], depth: depth)
                } else {
                    report(path, "an array needs \"items\"")
                }
            }
        }

        /// The declared types; a list is only accepted as `[T, "null"]`.
        mutating func typeList(_ node: JSONObject, at path: [JSONPathComponent]) -> [String]? {
            guard let type = node["type"] else { return nil }
            let typePath = path + [.key("type")]
            switch type {
            case .string(let name):
                if !types.contains(name) { report(typePath, "unknown type '\(name)'") }
                return [name]
            case .array(let items):
                let names = items.compactMap(\.stringValue)
                if names.count != items.count || names.contains(where: { !types.contains($0) }) {
                    report(typePath, "type list must hold type names")
                } else if names.count != 2 || names.filter({ $0 == "null" }).count != 1 {
                    report(typePath, "a type list must be [\"<type>\", \"null\"] (use anyOf for other unions)")
                }
                return names
            default:
                report(typePath, "type must be a string or [\"<type>\", \"null\"]")
                return nil
            }
        }

        mutating func lintObject(_ node: JSONObject, at path: [JSONPathComponent], depth: Int) {
            if depth > maxObjectDepth { report(path, "objects nested \(depth) deep (limit \(maxObjectDepth))") }
            if node["additionalProperties"] != .bool(false) {
                report(path, "objects must set \"additionalProperties\": false")
            }
            let properties = node["properties"]?.objectValue
            if node["properties"] != nil, properties == nil { report(path + [.key("properties")], "properties must be an object") }
            let required = node["required"]?.arrayValue
            if node["required"] != nil, required?.allSatisfy({ $0.stringValue != nil }) != true {
                report(path + [.key("required")], "required must be an array of property names")
            }
            let requiredNames = Set((required ?? []).compactMap(\.stringValue))
            for (name, property) in properties ?? JSONObject() {
                propertyCount += 1
                stringLength += name.count
                if !requiredNames.contains(name) {
                    report(path + [.key("properties"), .key(name)], "property '\(name)' is not in required (strict mode needs every property; make it nullable instead)")
                }
                lint(property, at: path + [.key("properties"), .key(name)], depth: depth)
            }
            for name in requiredNames.sorted() where properties?[name] == nil {
                report(path + [.key("required")], "required names '\(name)', which is not a property")
            }
        }

        mutating func lintEnumAndConst(_ node: JSONObject, at path: [JSONPathComponent]) {
            if let values = node["enum"] {
                guard let items = values.arrayValue, !items.isEmpty else {
                    report(path + [.key("enum")], "enum must be a non-empty array")
                    return
                }
                enumValueCount += items.count
                let strings = items.compactMap(\.stringValue)
                let length = strings.reduce(0) { $0 + $1.count }
                stringLength += length
                if strings.count > largeEnumThreshold, length > maxLargeEnumStringLength {
                    report(path + [.key("enum")], "a string enum of \(strings.count) values may total \(maxLargeEnumStringLength) characters, has \(length)")
                }
                if Set(items).count != items.count { report(path + [.key("enum")], "enum values must be unique") }
            }
            if case .string(let value)? = node["const"] { stringLength += value.count }
        }

        /// Keywords that only mean something for one type must sit on a schema of that type.
        mutating func lintKeywordTypes(_ node: JSONObject, types: Set<String>, at path: [JSONPathComponent]) {
            if let format = node["format"] {
                if !types.contains("string") { report(path + [.key("format")], "format applies to strings only") }
                if let name = format.stringValue, !supportedFormats.contains(name) {
                    report(path + [.key("format")], "format '\(name)' is not supported (supported: \(supportedFormats.sorted().joined(separator: ", ")))")
                }
            }
            if let pattern = node["pattern"] {
                if !types.contains("string") { report(path + [.key("pattern")], "pattern applies to strings only") }
                if let text = pattern.stringValue, (try? NSRegularExpression(pattern: text)) == nil {
                    report(path + [.key("pattern")], "pattern '\(text)' is not a valid regular expression")
                }
            }
            for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] where node[key] != nil {
                if types.isDisjoint(with: ["number", "integer"]) { report(path + [.key(key)], "\(key) applies to numbers only") }
                if node[key]?.doubleValue == nil { report(path + [.key(key)], "\(key) must be a number") }
            }
            for key in ["minLength", "maxLength"] where node[key] != nil {
                if !types.contains("string") { report(path + [.key(key)], "\(key) applies to strings only") }
                if (node[key]?.integerValue ?? -1) < 0 { report(path + [.key(key)], "\(key) must be a non-negative integer") }
            }
            for key in ["minItems", "maxItems"] where node[key] != nil {
                if !types.contains("array") { report(path + [.key(key)], "\(key) applies to arrays only") }
                if (node[key]?.integerValue ?? -1) < 0 { report(path + [.key(key)], "\(key) must be a non-negative integer") }
            }
            for key in ["properties", "required", "additionalProperties"] where node[key] != nil && !types.contains("object") {
                report(path + [.key(key)], "\(key) applies to objects only")
            }
            if node["items"] != nil, !types.contains("array") { report(path + [.key("items")], "items applies to arrays only") }
        }

        mutating func lintRef(_ ref: JSONValue, at path: [JSONPathComponent]) {
            guard let text = ref.stringValue else {
                report(path, "$ref must be a string")
                return
            }
            if text == "#" { return }
            guard text.hasPrefix("#/$defs/") else {
                report(path, "$ref '\(text)' must point into the root's $defs (\"#/$defs/Name\") or be \"#\"")
                return
            }
            let name = String(text.dropFirst("#/$defs/".count))
                .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if root["$defs"]?[name] == nil { report(path, "$ref '\(text)' does not resolve (no $defs entry '\(name)')") }
        }
    }
}
