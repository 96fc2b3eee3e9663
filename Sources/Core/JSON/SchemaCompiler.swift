import Foundation

/// Turns a raw schema into `SchemaNode`s once, checking every keyword's argument and resolving every `$ref`
/// (JSON pointers, `$id`-relative URIs, `$anchor`s) inside the root document; nothing remote is fetched.
struct SchemaCompiler {
    static let maxDepth = 200

    /// Where a schema sits: inside the root document (so `$ref`s can reach it) or in a detached schema given beside a root.
    struct Location {
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

    func fail(_ location: Location, _ message: String) -> JSONSchemaError {
        JSONSchemaError(schemaPath: (location.inRoot && rootIsSeparate ? "root#" : "#") + location.pointer.description, message: message)
    }

    mutating func compile(_ value: JSONValue, at location: Location, base: URIReference, depth: Int) throws(JSONSchemaError) -> Int {
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

    mutating func compilePattern(_ source: String, at location: Location) throws(JSONSchemaError) -> CompiledPattern {
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

    mutating func resolveRef(_ ref: String, base: URIReference, at location: Location) throws(JSONSchemaError) -> Int {
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
