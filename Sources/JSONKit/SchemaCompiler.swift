import Foundation

/// Turns a raw schema into `SchemaNode`s once, checking every keyword's argument and resolving every `$ref`
/// (JSON pointers, `$id`-relative URIs, `$anchor`s) inside the root document; nothing remote is fetched.
struct SchemaCompiler {
    static let maxDepth = 200

    /// Where a schema sits: inside the root document (so `$ref`s can reach it) or in a detached schema given beside a root.
    private struct Location {
        var pointer: JSONPointer
        var inRoot: Bool

        func appending(_ token: String) -> Location { Location(pointer: pointer.appending(token), inRoot: inRoot) }
        func appending(_ index: Int) -> Location { appending(String(index)) }
    }

    private struct PendingRef {
        var index: Int
        var value: JSONValue
        var pointer: JSONPointer
        var base: URIReference
    }

    /// The base URI of a root without `$id`: only fragment refs (`#/...`, `#anchor`) can reach it.
    private static let defaultBase = URIReference("messageai-schema:/root.json")

    /// Keywords whose value is one subschema, a map of subschemas, or an array of subschemas.
    static let singleSubschemaKeywords = [
        "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema",
    ]
    static let mapSubschemaKeywords = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
    static let arraySubschemaKeywords = ["prefixItems", "allOf", "anyOf", "oneOf"]

    private let root: JSONValue
    private let rootIsSeparate: Bool
    private var nodes: [SchemaNode] = []
    private var byLocation: [JSONPointer: Int] = [:]
    private var pending: [PendingRef] = []
    private var resources: [String: JSONPointer] = [:]
    private var anchors: [String: JSONPointer] = [:]
    /// openapi.json repeats the same patterns many times: compile each source once.
    private var regexCache: [String: CompiledPattern] = [:]

    private init(root: JSONValue, rootIsSeparate: Bool) {
        self.root = root
        self.rootIsSeparate = rootIsSeparate
        resources[Self.defaultBase.text] = .root
        scanResources(root, pointer: .root, base: Self.defaultBase)
    }

    static func compile(_ schema: JSONValue, root: JSONValue?) throws(JSONSchemaError) -> CompiledSchema {
        var compiler = SchemaCompiler(root: root ?? schema, rootIsSeparate: root != nil)
        let location = Location(pointer: .root, inRoot: root == nil)
        let base = root == nil ? defaultBase : compiler.rootBase
        let rootIndex = try compiler.compile(schema, at: location, base: base, depth: 0)
        while let next = compiler.pending.popLast() {
            let node = try compiler.build(next.value, at: Location(pointer: next.pointer, inRoot: true), base: next.base, depth: 0)
            compiler.nodes[next.index] = node
        }
        return CompiledSchema(nodes: compiler.nodes, rootIndex: rootIndex)
    }

    // MARK: - Resources ($id, $anchor)

    /// Records every `$id` and `$anchor` reachable through schema keywords, so refs may point forward or sideways.
    private mutating func scanResources(_ value: JSONValue, pointer: JSONPointer, base: URIReference) {
        guard case .object(let object) = value else { return }
        var base = base
        if let id = object["$id"]?.stringValue {
            base = URIReference(id).resolved(against: base).withoutFragment
            if resources[base.text] == nil { resources[base.text] = pointer }
        }
        if let anchor = object["$anchor"]?.stringValue {
            anchors[base.text + "#" + anchor] = pointer
        }
        for key in Self.singleSubschemaKeywords {
            if let sub = object[key] { scanResources(sub, pointer: pointer.appending(key), base: base) }
        }
        for key in Self.mapSubschemaKeywords {
            guard case .object(let map)? = object[key] else { continue }
            for (name, sub) in map { scanResources(sub, pointer: pointer.appending(key).appending(name), base: base) }
        }
        for key in Self.arraySubschemaKeywords {
            guard case .array(let items)? = object[key] else { continue }
            for (i, sub) in items.enumerated() { scanResources(sub, pointer: pointer.appending(key).appending(i), base: base) }
        }
    }

    /// The base URI in force just outside the value at `pointer` (the `$id`s of the root and of every enclosing object).
    private func baseURI(enclosing pointer: JSONPointer) -> URIReference {
        var base = Self.defaultBase
        var current = root
        for token in pointer.tokens {
            if let id = current["$id"]?.stringValue { base = URIReference(id).resolved(against: base).withoutFragment }
            guard let next = JSONPointer(tokens: [token]).resolve(in: current) else { break }
            current = next
        }
        return base
    }

    /// The root document's own base URI, which a detached schema's refs resolve against.
    private var rootBase: URIReference {
        guard let id = root["$id"]?.stringValue else { return Self.defaultBase }
        return URIReference(id).resolved(against: Self.defaultBase).withoutFragment
    }

    // MARK: - Nodes

    private func fail(_ location: Location, _ message: String) -> JSONSchemaError {
        JSONSchemaError(schemaPath: (location.inRoot && rootIsSeparate ? "root#" : "#") + location.pointer.description, message: message)
    }

    private mutating func compile(_ value: JSONValue, at location: Location, base: URIReference, depth: Int) throws(JSONSchemaError) -> Int {
        if location.inRoot, let existing = byLocation[location.pointer] { return existing }
        let index = nodes.count
        nodes.append(SchemaNode())
        if location.inRoot { byLocation[location.pointer] = index }
        nodes[index] = try build(value, at: location, base: base, depth: depth)
        return index
    }

    private mutating func build(_ value: JSONValue, at location: Location, base: URIReference, depth: Int) throws(JSONSchemaError) -> SchemaNode {
        guard depth <= Self.maxDepth else { throw fail(location, "schema nested deeper than \(Self.maxDepth) levels") }
        switch value {
        case .bool(true): return SchemaNode()
        case .bool(false): return SchemaNode(keywords: [.alwaysFalse])
        case .object(let object): return try buildObject(object, at: location, base: base, depth: depth)
        default: throw fail(location, "a schema must be an object or a boolean, got \(value.typeName)")
        }
    }

    private mutating func buildObject(_ o: JSONObject, at location: Location, base: URIReference, depth: Int) throws(JSONSchemaError) -> SchemaNode {
        var base = base
        if let id = o["$id"] {
            guard let text = id.stringValue else { throw fail(location.appending("$id"), "$id must be a string") }
            base = URIReference(text).resolved(against: base).withoutFragment
        }
        var node = SchemaNode()
        var k: [SchemaKeyword] = []

        func sub(_ value: JSONValue, _ at: Location) throws(JSONSchemaError) -> Int {
            try compile(value, at: at, base: base, depth: depth + 1)
        }
        func subArray(_ key: String) throws(JSONSchemaError) -> [Int]? {
            guard let value = o[key] else { return nil }
            guard case .array(let items) = value, !items.isEmpty else { throw fail(location.appending(key), "\(key) must be a non-empty array of schemas") }
            var out: [Int] = []
            for (i, item) in items.enumerated() { out.append(try sub(item, location.appending(key).appending(i))) }
            return out
        }
        func subMap(_ key: String) throws(JSONSchemaError) -> [(String, Int)]? {
            guard let value = o[key] else { return nil }
            guard case .object(let map) = value else { throw fail(location.appending(key), "\(key) must be an object of schemas") }
            var out: [(String, Int)] = []
            for (name, item) in map { out.append((name, try sub(item, location.appending(key).appending(name)))) }
            return out
        }
        func single(_ key: String) throws(JSONSchemaError) -> Int? {
            guard let value = o[key] else { return nil }
            return try sub(value, location.appending(key))
        }
        func count(_ key: String) throws(JSONSchemaError) -> Int? {
            guard let value = o[key] else { return nil }
            guard let n = value.integerValue, n >= 0, n <= Int64(Int.max) else { throw fail(location.appending(key), "\(key) must be a non-negative integer, got \(value.excerpt())") }
            return Int(n)
        }
        func number(_ key: String) throws(JSONSchemaError) -> JSONValue? {
            guard let value = o[key] else { return nil }
            guard value.doubleValue != nil else { throw fail(location.appending(key), "\(key) must be a number, got \(value.excerpt())") }
            return value
        }
        func strings(_ value: JSONValue, _ at: Location) throws(JSONSchemaError) -> [String] {
            guard case .array(let items) = value else { throw fail(at, "expected an array of strings") }
            var out: [String] = []
            for item in items {
                guard let s = item.stringValue else { throw fail(at, "expected an array of strings, found \(item.excerpt())") }
                out.append(s)
            }
            return out
        }
        func regex(_ source: String, _ at: Location) throws(JSONSchemaError) -> CompiledPattern {
            try compilePattern(source, at: at)
        }

        if o["nullable"] == .bool(true) { node.acceptsNull = true }

        if let ref = o["$ref"] {
            guard let text = ref.stringValue else { throw fail(location.appending("$ref"), "$ref must be a string") }
            k.append(.ref(try resolveRef(text, base: base, at: location.appending("$ref")), text))
        }
        if let type = o["type"] {
            let names: [JSONValue]
            if case .array(let list) = type { names = list } else { names = [type] }
            var set = JSONTypeSet()
            for name in names {
                guard let text = name.stringValue, let member = JSONTypeSet(name: text) else {
                    throw fail(location.appending("type"), "unknown type \(name.excerpt()); expected string, number, integer, boolean, object, array or null")
                }
                set.insert(member)
            }
            k.append(.types(set))
        }
        if let values = o["enum"] {
            guard case .array(let list) = values else { throw fail(location.appending("enum"), "enum must be an array") }
            k.append(.enumeration(Set(list.map(SchemaEquatableValue.init)), listed: list))
        }
        if let value = o["const"] { k.append(.constant(SchemaEquatableValue(value), listed: value)) }

        // OpenAPI 3.0 (and draft 4) spell an exclusive bound as `minimum: 0, exclusiveMinimum: true`; openapi.json does.
        let exclusiveMinimumFlag = o["exclusiveMinimum"]?.boolValue
        let exclusiveMaximumFlag = o["exclusiveMaximum"]?.boolValue
        if let n = try number("minimum") { k.append(exclusiveMinimumFlag == true ? .exclusiveMinimum(n) : .minimum(n)) }
        if let n = try number("maximum") { k.append(exclusiveMaximumFlag == true ? .exclusiveMaximum(n) : .maximum(n)) }
        if exclusiveMinimumFlag == nil, let n = try number("exclusiveMinimum") { k.append(.exclusiveMinimum(n)) }
        if exclusiveMaximumFlag == nil, let n = try number("exclusiveMaximum") { k.append(.exclusiveMaximum(n)) }
        if let n = try number("multipleOf") {
            guard (n.doubleValue ?? 0) > 0 else { throw fail(location.appending("multipleOf"), "multipleOf must be greater than 0") }
            k.append(.multipleOf(n))
        }

        if let n = try count("minLength") { k.append(.minLength(n)) }
        if let n = try count("maxLength") { k.append(.maxLength(n)) }
        if let value = o["pattern"] {
            guard let source = value.stringValue else { throw fail(location.appending("pattern"), "pattern must be a string") }
            k.append(.pattern(try regex(source, location.appending("pattern"))))
        }
        if let value = o["format"] {
            guard let name = value.stringValue else { throw fail(location.appending("format"), "format must be a string") }
            if let format = StringFormat(rawValue: name) { k.append(.format(format)) }
        }

        let prefixItems = try subArray("prefixItems")
        if let value = o["items"], case .array = value {
            throw fail(location.appending("items"), "items must be a single schema in draft 2020-12 (use prefixItems for tuples)")
        }
        let items = try single("items")
        if prefixItems != nil || items != nil { k.append(.array(prefixItems: prefixItems ?? [], items: items)) }
        if let n = try count("minItems") { k.append(.minItems(n)) }
        if let n = try count("maxItems") { k.append(.maxItems(n)) }
        if let value = o["uniqueItems"] {
            guard let flag = value.boolValue else { throw fail(location.appending("uniqueItems"), "uniqueItems must be a boolean") }
            if flag { k.append(.uniqueItems) }
        }
        if let contains = try single("contains") {
            k.append(.contains(contains, min: try count("minContains") ?? 1, max: try count("maxContains")))
        }

        var rules = ObjectRules()
        for (name, index) in try subMap("properties") ?? [] { rules.properties[name] = index }
        if case .object(let patterns)? = o["patternProperties"] {
            for (source, schema) in patterns {
                let at = location.appending("patternProperties").appending(source)
                rules.patternProperties.append((try regex(source, at), try sub(schema, at)))
            }
        } else if o["patternProperties"] != nil {
            throw fail(location.appending("patternProperties"), "patternProperties must be an object of schemas")
        }
        rules.additionalProperties = try single("additionalProperties")
        if o["properties"] != nil || o["patternProperties"] != nil || o["additionalProperties"] != nil {
            rules.forbidsAdditional = o["additionalProperties"] == .bool(false)
            k.append(.object(rules))
        }
        if let value = o["required"] { k.append(.required(try strings(value, location.appending("required")))) }
        if let n = try count("minProperties") { k.append(.minProperties(n)) }
        if let n = try count("maxProperties") { k.append(.maxProperties(n)) }
        if let names = try single("propertyNames") { k.append(.propertyNames(names)) }
        if let value = o["dependentRequired"] {
            guard case .object(let map) = value else { throw fail(location.appending("dependentRequired"), "dependentRequired must be an object") }
            var pairs: [(String, [String])] = []
            for (name, list) in map { pairs.append((name, try strings(list, location.appending("dependentRequired").appending(name)))) }
            k.append(.dependentRequired(pairs))
        }
        if let pairs = try subMap("dependentSchemas") { k.append(.dependentSchemas(pairs)) }

        if let list = try subArray("allOf") { k.append(.allOf(list)) }
        if let list = try subArray("anyOf") { k.append(.anyOf(list)) }
        if let list = try subArray("oneOf") { k.append(.oneOf(list)) }
        if let index = try single("not") { k.append(.not(index)) }
        if let condition = try single("if") {
            k.append(.conditional(if: condition, then: try single("then"), else: try single("else")))
        }
        // Definitions are compiled even when unused, so a broken one is reported now rather than when first referenced.
        _ = try subMap("$defs")
        _ = try subMap("definitions")

        node.keywords = k
        return node
    }

    private mutating func compilePattern(_ source: String, at location: Location) throws(JSONSchemaError) -> CompiledPattern {
        if let cached = regexCache[source] { return cached }
        do {
            let pattern = CompiledPattern(source: source, regex: try NSRegularExpression(pattern: source))
            regexCache[source] = pattern
            return pattern
        } catch {
            throw fail(location, "invalid regular expression '\(source)'")
        }
    }

    // MARK: - $ref

    private mutating func resolveRef(_ ref: String, base: URIReference, at location: Location) throws(JSONSchemaError) -> Int {
        let target = URIReference(ref).resolved(against: base)
        let resource = target.withoutFragment.text
        guard let resourcePointer = resources[resource] else {
            throw fail(location, "cannot resolve $ref '\(ref)': '\(resource)' is not in this document (remote references are not supported)")
        }
        guard let fragment = percentDecoded(target.fragment ?? "") else { throw fail(location, "malformed percent-encoding in $ref '\(ref)'") }
        let pointer: JSONPointer
        if fragment.isEmpty {
            pointer = resourcePointer
        } else if fragment.hasPrefix("/") {
            guard let relative = JSONPointer(parsing: fragment) else { throw fail(location, "malformed JSON pointer in $ref '\(ref)'") }
            pointer = JSONPointer(tokens: resourcePointer.tokens + relative.tokens)
        } else if let anchored = anchors[resource + "#" + fragment] {
            pointer = anchored
        } else {
            throw fail(location, "cannot resolve $ref '\(ref)': no $anchor '\(fragment)'")
        }
        if let existing = byLocation[pointer] { return existing }
        guard let value = pointer.resolve(in: root) else {
            throw fail(location, "cannot resolve $ref '\(ref)': nothing at #\(pointer.description)")
        }
        let index = nodes.count
        nodes.append(SchemaNode())
        byLocation[pointer] = index
        pending.append(PendingRef(index: index, value: value, pointer: pointer, base: baseURI(enclosing: pointer)))
        return index
    }
}
