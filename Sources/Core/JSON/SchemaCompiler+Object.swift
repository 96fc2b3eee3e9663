/// Compiling one schema object, a keyword family at a time: each family reads its keywords through `SchemaSite`, which
/// checks the arguments' types and compiles subschemas in place.
extension SchemaCompiler {
    /// One schema object being compiled: its keywords, where it sits and the base URI its `$ref`s resolve against.
    struct SchemaSite {
        let object: JSONObject
        let location: Location
        let base: URIReference
        let depth: Int

        subscript(_ key: String) -> JSONValue? { object[key] }
        func at(_ key: String) -> Location { location.appending(key) }
    }

    mutating func buildObject(_ object: JSONObject, at location: Location, base: URIReference, depth: Int) throws(JSONSchemaError) -> SchemaNode {
        var base = base
        if let id = object["$id"] {
            guard let text = id.stringValue else { throw fail(location.appending("$id"), "$id must be a string") }
            base = URIReference(text).resolved(against: base).withoutFragment
        }
        let site = SchemaSite(object: object, location: location, base: base, depth: depth)
        var node = SchemaNode()
        if object["nullable"] == .bool(true) { node.acceptsNull = true }
        node.keywords = try typeKeywords(site) + numberKeywords(site) + stringKeywords(site) + arrayKeywords(site)
            + objectKeywords(site) + applicatorKeywords(site)
        // Definitions are compiled even when unused, so a broken one is reported now rather than when first referenced.
        _ = try subMap("$defs", site)
        _ = try subMap("definitions", site)
        return node
    }

    // MARK: Keyword families

    private mutating func typeKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        if let ref = site["$ref"] {
            guard let text = ref.stringValue else { throw fail(site.at("$ref"), "$ref must be a string") }
            k.append(.ref(try resolveRef(text, base: site.base, at: site.at("$ref")), text))
        }
        if let type = site["type"] {
            let names: [JSONValue]
            if case .array(let list) = type { names = list } else { names = [type] }
            var set = JSONTypeSet()
            for name in names {
                guard let text = name.stringValue, let member = JSONTypeSet(name: text) else {
                    throw fail(site.at("type"), "unknown type \(name.excerpt()); expected string, number, integer, boolean, object, array or null")
                }
                set.insert(member)
            }
            k.append(.types(set))
        }
        if let values = site["enum"] {
            guard case .array(let list) = values else { throw fail(site.at("enum"), "enum must be an array") }
            k.append(.enumeration(Set(list.map(SchemaEquatableValue.init)), listed: list))
        }
        if let value = site["const"] { k.append(.constant(SchemaEquatableValue(value), listed: value)) }
        return k
    }

    private func numberKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        // OpenAPI 3.0 (and draft 4) spell an exclusive bound as `minimum: 0, exclusiveMinimum: true`; openapi.json does.
        let exclusiveMinimumFlag = site["exclusiveMinimum"]?.boolValue
        let exclusiveMaximumFlag = site["exclusiveMaximum"]?.boolValue
        if let n = try number("minimum", site) { k.append(exclusiveMinimumFlag == true ? .exclusiveMinimum(n) : .minimum(n)) }
        if let n = try number("maximum", site) { k.append(exclusiveMaximumFlag == true ? .exclusiveMaximum(n) : .maximum(n)) }
        if exclusiveMinimumFlag == nil, let n = try number("exclusiveMinimum", site) { k.append(.exclusiveMinimum(n)) }
        if exclusiveMaximumFlag == nil, let n = try number("exclusiveMaximum", site) { k.append(.exclusiveMaximum(n)) }
        if let n = try number("multipleOf", site) {
            guard (n.doubleValue ?? 0) > 0 else { throw fail(site.at("multipleOf"), "multipleOf must be greater than 0") }
            k.append(.multipleOf(n))
        }
        return k
    }

    private mutating func stringKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        if let n = try count("minLength", site) { k.append(.minLength(n)) }
        if let n = try count("maxLength", site) { k.append(.maxLength(n)) }
        if let value = site["pattern"] {
            guard let source = value.stringValue else { throw fail(site.at("pattern"), "pattern must be a string") }
            k.append(.pattern(try compilePattern(source, at: site.at("pattern"))))
        }
        if let value = site["format"] {
            guard let name = value.stringValue else { throw fail(site.at("format"), "format must be a string") }
            if let format = StringFormat(rawValue: name) { k.append(.format(format)) }
        }
        return k
    }

    private mutating func arrayKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        let prefixItems = try subArray("prefixItems", site)
        if let value = site["items"], case .array = value {
            throw fail(site.at("items"), "items must be a single schema in draft 2020-12 (use prefixItems for tuples)")
        }
        let items = try single("items", site)
        if prefixItems != nil || items != nil { k.append(.array(prefixItems: prefixItems ?? [], items: items)) }
        if let n = try count("minItems", site) { k.append(.minItems(n)) }
        if let n = try count("maxItems", site) { k.append(.maxItems(n)) }
        if let value = site["uniqueItems"] {
            guard let flag = value.boolValue else { throw fail(site.at("uniqueItems"), "uniqueItems must be a boolean") }
            if flag { k.append(.uniqueItems) }
        }
        if let contains = try single("contains", site) {
            k.append(.contains(contains, min: try count("minContains", site) ?? 1, max: try count("maxContains", site)))
        }
        return k
    }

    private mutating func objectKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        var rules = ObjectRules()
        for (name, index) in try subMap("properties", site) ?? [] { rules.properties[name] = index }
        if case .object(let patterns)? = site["patternProperties"] {
            for (source, schema) in patterns {
                let at = site.at("patternProperties").appending(source)
                rules.patternProperties.append((try compilePattern(source, at: at), try compile(schema, at: at, base: site.base, depth: site.depth + 1)))
            }
        } else if site["patternProperties"] != nil {
            throw fail(site.at("patternProperties"), "patternProperties must be an object of schemas")
        }
        rules.additionalProperties = try single("additionalProperties", site)
        if site["properties"] != nil || site["patternProperties"] != nil || site["additionalProperties"] != nil {
            rules.forbidsAdditional = site["additionalProperties"] == .bool(false)
            k.append(.object(rules))
        }
        if let value = site["required"] { k.append(.required(try strings(value, site.at("required")))) }
        if let n = try count("minProperties", site) { k.append(.minProperties(n)) }
        if let n = try count("maxProperties", site) { k.append(.maxProperties(n)) }
        if let names = try single("propertyNames", site) { k.append(.propertyNames(names)) }
        if let value = site["dependentRequired"] {
            guard case .object(let map) = value else { throw fail(site.at("dependentRequired"), "dependentRequired must be an object") }
            var pairs: [(String, [String])] = []
            for (name, list) in map { pairs.append((name, try strings(list, site.at("dependentRequired").appending(name)))) }
            k.append(.dependentRequired(pairs))
        }
        if let pairs = try subMap("dependentSchemas", site) { k.append(.dependentSchemas(pairs)) }
        return k
    }

    private mutating func applicatorKeywords(_ site: SchemaSite) throws(JSONSchemaError) -> [SchemaKeyword] {
        var k: [SchemaKeyword] = []
        if let list = try subArray("allOf", site) { k.append(.allOf(list)) }
        if let list = try subArray("anyOf", site) { k.append(.anyOf(list)) }
        if let list = try subArray("oneOf", site) { k.append(.oneOf(list)) }
        if let index = try single("not", site) { k.append(.not(index)) }
        if let condition = try single("if", site) {
            k.append(.conditional(if: condition, then: try single("then", site), else: try single("else", site)))
        }
        return k
    }

    // MARK: Reading keyword arguments

    private mutating func single(_ key: String, _ site: SchemaSite) throws(JSONSchemaError) -> Int? {
        guard let value = site[key] else { return nil }
        return try compile(value, at: site.at(key), base: site.base, depth: site.depth + 1)
    }

    private mutating func subArray(_ key: String, _ site: SchemaSite) throws(JSONSchemaError) -> [Int]? {
        guard let value = site[key] else { return nil }
        guard case .array(let items) = value, !items.isEmpty else { throw fail(site.at(key), "\(key) must be a non-empty array of schemas") }
        var out: [Int] = []
        for (i, item) in items.enumerated() {
            out.append(try compile(item, at: site.at(key).appending(i), base: site.base, depth: site.depth + 1))
        }
        return out
    }

    private mutating func subMap(_ key: String, _ site: SchemaSite) throws(JSONSchemaError) -> [(String, Int)]? {
        guard let value = site[key] else { return nil }
        guard case .object(let map) = value else { throw fail(site.at(key), "\(key) must be an object of schemas") }
        var out: [(String, Int)] = []
        for (name, item) in map {
            out.append((name, try compile(item, at: site.at(key).appending(name), base: site.base, depth: site.depth + 1)))
        }
        return out
    }

    private func count(_ key: String, _ site: SchemaSite) throws(JSONSchemaError) -> Int? {
        guard let value = site[key] else { return nil }
        guard let n = value.integerValue, n >= 0, n <= Int64(Int.max) else {
            throw fail(site.at(key), "\(key) must be a non-negative integer, got \(value.excerpt())")
        }
        return Int(n)
    }

    private func number(_ key: String, _ site: SchemaSite) throws(JSONSchemaError) -> JSONValue? {
        guard let value = site[key] else { return nil }
        guard value.doubleValue != nil else { throw fail(site.at(key), "\(key) must be a number, got \(value.excerpt())") }
        return value
    }

    private func strings(_ value: JSONValue, _ at: Location) throws(JSONSchemaError) -> [String] {
        guard case .array(let items) = value else { throw fail(at, "expected an array of strings") }
        var out: [String] = []
        for item in items {
            guard let s = item.stringValue else { throw fail(at, "expected an array of strings, found \(item.excerpt())") }
            out.append(s)
        }
        return out
    }
}
