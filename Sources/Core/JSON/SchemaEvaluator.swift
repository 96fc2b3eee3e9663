/// Walks an instance against compiled nodes. With `collecting` off it stops at the first failure (for `isValid`
/// and for trying `anyOf`/`oneOf`/`not` branches); with it on it records every failure with its instance path.
struct SchemaEvaluator {
    static let maxDepth = 256

    enum PathComponent {
        case key(String)
        case index(Int)
    }

    /// An error plus, for `enum`/`const` failures, the allowed values (to merge "expected one of" across alternatives).
    struct Failure {
        var error: JSONValidationError
        var allowed: [JSONValue] = []
    }

    let nodes: [SchemaNode]
    var collecting: Bool
    private(set) var failures: [Failure] = []
    var errors: [JSONValidationError] { failures.map(\.error) }
    private var path: [PathComponent] = []
    private var depth = 0

    init(nodes: [SchemaNode], collecting: Bool) {
        self.nodes = nodes
        self.collecting = collecting
    }

    mutating func evaluate(_ index: Int, _ instance: JSONValue) -> Bool {
        let node = nodes[index]
        if node.acceptsNull, instance == .null { return true }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            report("$ref", "schema recursion deeper than \(Self.maxDepth) levels (a $ref cycle that never moves into the value?)")
            return false
        }
        var valid = true
        for keyword in node.keywords where !check(keyword, instance) {
            valid = false
            if !collecting { return false }
        }
        return valid
    }

    // MARK: - Reporting

    var pathString: String {
        var out = "$"
        for component in path {
            switch component {
            case .index(let i): out += "[\(i)]"
            case .key(let key): out = childPath(out, key)
            }
        }
        return out
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return key.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    private mutating func report(_ keyword: String, _ message: String, allowed: [JSONValue] = []) {
        guard collecting else { return }
        failures.append(Failure(error: JSONValidationError(path: pathString, keyword: keyword, message: message), allowed: allowed))
    }

    private mutating func evaluate(_ index: Int, _ instance: JSONValue, at component: PathComponent) -> Bool {
        path.append(component)
        defer { path.removeLast() }
        return evaluate(index, instance)
    }

    /// Evaluates without recording anything: for branches whose failure is not itself an error.
    private mutating func trial(_ index: Int, _ instance: JSONValue) -> Bool {
        let saved = collecting
        collecting = false
        defer { collecting = saved }
        return evaluate(index, instance)
    }

    /// The errors one branch would produce, without keeping them.
    private mutating func branchFailures(_ index: Int, _ instance: JSONValue) -> [Failure] {
        let start = failures.count
        _ = evaluate(index, instance)
        let produced = Array(failures[start...])
        failures.removeSubrange(start...)
        return produced
    }

    // MARK: - Keywords

    private mutating func check(_ keyword: SchemaKeyword, _ instance: JSONValue) -> Bool {
        switch keyword {
        case .alwaysFalse:
            report("false", "no value is allowed here")
            return false
        case .types(let set):
            guard set.admits(instance) else {
                report("type", "expected \(set.readable), got \(instance.typeName)")
                return false
            }
            return true
        case .enumeration(let allowed, let listed):
            guard allowed.contains(SchemaEquatableValue(instance)) else {
                let shown = listed.prefix(8).map { $0.excerpt(limit: 40) }.joined(separator: ", ") + (listed.count > 8 ? ", …" : "")
                report("enum", listed.isEmpty ? "no value is allowed (empty enum)" : "expected one of \(shown), got \(instance.excerpt())", allowed: listed)
                return false
            }
            return true
        case .constant(let expected, let listed):
            guard expected == SchemaEquatableValue(instance) else {
                report("const", "expected \(listed.excerpt()), got \(instance.excerpt())", allowed: [listed])
                return false
            }
            return true
        case .ref(let target, _):
            return evaluate(target, instance)
        case .minimum, .maximum, .exclusiveMinimum, .exclusiveMaximum, .multipleOf:
            return checkNumber(keyword, instance)
        case .minLength, .maxLength, .pattern, .format:
            guard case .string(let text) = instance else { return true }
            return checkString(keyword, text)
        case .array, .minItems, .maxItems, .uniqueItems, .contains:
            guard case .array(let items) = instance else { return true }
            return checkArray(keyword, items)
        case .object, .required, .minProperties, .maxProperties, .propertyNames, .dependentRequired, .dependentSchemas:
            guard case .object(let object) = instance else { return true }
            return checkObject(keyword, object, instance)
        case .allOf, .anyOf, .oneOf, .not, .conditional:
            return checkCombinator(keyword, instance)
        }
    }

    private mutating func checkNumber(_ keyword: SchemaKeyword, _ instance: JSONValue) -> Bool {
        guard instance.doubleValue != nil else { return true }
        let (ok, name, message): (Bool, String, String)
        switch keyword {
        case .minimum(let bound): (ok, name, message) = ((compareNumbers(instance, bound) ?? 0) >= 0, "minimum", "expected a number >= \(bound)")
        case .maximum(let bound): (ok, name, message) = ((compareNumbers(instance, bound) ?? 0) <= 0, "maximum", "expected a number <= \(bound)")
        case .exclusiveMinimum(let bound): (ok, name, message) = ((compareNumbers(instance, bound) ?? 1) > 0, "exclusiveMinimum", "expected a number > \(bound)")
        case .exclusiveMaximum(let bound): (ok, name, message) = ((compareNumbers(instance, bound) ?? -1) < 0, "exclusiveMaximum", "expected a number < \(bound)")
        case .multipleOf(let divisor): (ok, name, message) = (isMultiple(instance, of: divisor), "multipleOf", "expected a multiple of \(divisor)")
        default: return true
        }
        if !ok { report(name, "\(message), got \(instance)") }
        return ok
    }

    private mutating func checkString(_ keyword: SchemaKeyword, _ text: String) -> Bool {
        switch keyword {
        case .minLength(let n):
            let length = text.unicodeScalars.count
            guard length >= n else { report("minLength", "expected at least \(n) character(s), got \(length)"); return false }
        case .maxLength(let n):
            let length = text.unicodeScalars.count
            guard length <= n else { report("maxLength", "expected at most \(n) character(s), got \(length)"); return false }
        case .pattern(let pattern):
            guard pattern.matches(text) else {
                report("pattern", "\(JSONValue.string(text).excerpt()) does not match the pattern \(JSONValue.string(pattern.source).excerpt())")
                return false
            }
        case .format(let format):
            guard RFC3339.isValid(text, as: format) else {
                let shape = switch format {
                case .date: "YYYY-MM-DD"
                case .time: "HH:MM:SS with an offset, e.g. 17:30:00Z"
                case .dateTime: "YYYY-MM-DDTHH:MM:SS with an offset, e.g. 2026-04-17T17:30:00+02:00"
                }
                report("format", "\(JSONValue.string(text).excerpt()) is not a valid RFC 3339 \(format.rawValue) (\(shape))")
                return false
            }
        default: break
        }
        return true
    }

    private mutating func checkArray(_ keyword: SchemaKeyword, _ items: [JSONValue]) -> Bool {
        switch keyword {
        case .array(let prefix, let rest):
            var valid = true
            for (i, item) in items.enumerated() {
                let schema = i < prefix.count ? prefix[i] : rest
                guard let schema else { continue }
                if !evaluate(schema, item, at: .index(i)) {
                    valid = false
                    if !collecting { return false }
                }
            }
            return valid
        case .minItems(let n):
            guard items.count >= n else { report("minItems", "expected at least \(n) item(s), got \(items.count)"); return false }
        case .maxItems(let n):
            guard items.count <= n else { report("maxItems", "expected at most \(n) item(s), got \(items.count)"); return false }
        case .uniqueItems:
            var seen: [SchemaEquatableValue: Int] = [:]
            for (i, item) in items.enumerated() {
                if let first = seen.updateValue(i, forKey: SchemaEquatableValue(item)) {
                    report("uniqueItems", "items [\(first)] and [\(i)] are equal; items must be unique")
                    return false
                }
            }
        case .contains(let schema, let min, let max):
            var matches = 0
            for item in items where trial(schema, item) { matches += 1 }
            if matches < min {
                report(min == 1 ? "contains" : "minContains", "expected at least \(min) item(s) matching 'contains', found \(matches)")
                return false
            }
            if let max, matches > max {
                report("maxContains", "expected at most \(max) item(s) matching 'contains', found \(matches)")
                return false
            }
        default: break
        }
        return true
    }

    private mutating func checkObject(_ keyword: SchemaKeyword, _ object: JSONObject, _ instance: JSONValue) -> Bool {
        var valid = true
        func failed() -> Bool { valid = false; return !collecting }
        switch keyword {
        case .object(let rules):
            for (key, value) in object {
                var matched = false
                if let schema = rules.properties[key] {
                    matched = true
                    if !evaluate(schema, value, at: .key(key)), failed() { return false }
                }
                for (pattern, schema) in rules.patternProperties where pattern.matches(key) {
                    matched = true
                    if !evaluate(schema, value, at: .key(key)), failed() { return false }
                }
                guard !matched, let extra = rules.additionalProperties else { continue }
                if rules.forbidsAdditional {
                    let allowed = rules.properties.keys.sorted()
                    let hint = allowed.isEmpty || allowed.count > 12 || !rules.patternProperties.isEmpty ? "" : " (allowed: \(allowed.joined(separator: ", ")))"
                    report("additionalProperties", "unexpected property '\(key)'\(hint)")
                    if failed() { return false }
                } else if !evaluate(extra, value, at: .key(key)), failed() {
                    return false
                }
            }
        case .required(let names):
            for name in names where object[name] == nil {
                report("required", "missing required property '\(name)'")
                if failed() { return false }
            }
        case .minProperties(let n):
            if object.count < n { report("minProperties", "expected at least \(n) propert(ies), got \(object.count)"); return false }
        case .maxProperties(let n):
            if object.count > n { report("maxProperties", "expected at most \(n) propert(ies), got \(object.count)"); return false }
        case .propertyNames(let schema):
            for key in object.keys where !trial(schema, .string(key)) {
                report("propertyNames", "property name '\(key)' is not allowed by propertyNames")
                if failed() { return false }
            }
        case .dependentRequired(let pairs):
            for (name, needed) in pairs where object[name] != nil {
                for other in needed where object[other] == nil {
                    report("dependentRequired", "property '\(name)' requires property '\(other)'")
                    if failed() { return false }
                }
            }
        case .dependentSchemas(let pairs):
            for (name, schema) in pairs where object[name] != nil {
                if !evaluate(schema, instance), failed() { return false }
            }
        default: break
        }
        return valid
    }

    private mutating func checkCombinator(_ keyword: SchemaKeyword, _ instance: JSONValue) -> Bool {
        switch keyword {
        case .allOf(let branches):
            var valid = true
            for branch in branches where !evaluate(branch, instance) {
                valid = false
                if !collecting { return false }
            }
            return valid
        case .anyOf(let branches):
            for branch in branches where trial(branch, instance) { return true }
            reportNoMatch("anyOf", branches, instance)
            return false
        case .oneOf(let branches):
            let matching = branches.indices.filter { trial(branches[$0], instance) }
            if matching.count == 1 { return true }
            if matching.isEmpty {
                reportNoMatch("oneOf", branches, instance)
            } else {
                report("oneOf", "matches \(matching.count) alternatives of oneOf (\(matching.map(String.init).joined(separator: ", "))); exactly one must match")
            }
            return false
        case .not(let schema):
            guard trial(schema, instance) else { return true }
            report("not", "\(instance.excerpt()) must not match the schema in 'not'")
            return false
        case .conditional(let condition, let then, let otherwise):
            let branch = trial(condition, instance) ? then : otherwise
            guard let branch else { return true }
            return evaluate(branch, instance)
        default:
            return true
        }
    }

    /// Explains why no alternative matched, as specifically as the alternatives allow:
    /// - the errors of the only alternative whose type fits and whose tag property (an `enum`/`const` property such as
    ///   `role` or `type`) matches;
    /// - "expected string or null, got integer" when only the types differ;
    /// - "$.messages[0].role: expected one of "system", "user", …" when every alternative is tagged by the same property;
    /// - otherwise a short summary of the first alternatives.
    private mutating func reportNoMatch(_ keyword: String, _ branches: [Int], _ instance: JSONValue) {
        guard collecting else { return }
        let here = pathString
        let outcomes = branches.map { branchFailures($0, instance) }
        let typeFits = outcomes.map { list in !list.contains { $0.error.path == here && ["type", "false"].contains($0.error.keyword) } }
        let candidates = outcomes.indices.filter { typeFits[$0] }
        if candidates.isEmpty {
            let union = branches.reduce(into: JSONTypeSet()) { $0.formUnion(declaredTypes(of: $1)) }
            if !union.isEmpty {
                report(keyword, "expected \(union.readable), got \(instance.typeName)")
                return
            }
        }
        let childPaths: Set<String> = instance.objectValue.map { object in Set(object.keys.map { childPath(here, $0) }) } ?? []
        func tagFailures(_ list: [Failure]) -> [Failure] {
            list.filter { ["enum", "const"].contains($0.error.keyword) && childPaths.contains($0.error.path) }
        }
        let untagged = candidates.filter { tagFailures(outcomes[$0]).isEmpty }
        if untagged.count == 1 || candidates.count == 1 {
            failures.append(contentsOf: outcomes[untagged.first ?? candidates[0]])
            return
        }
        let tags = candidates.flatMap { tagFailures(outcomes[$0]) }
        if untagged.isEmpty, let tag = tags.first, tags.allSatisfy({ $0.error.path == tag.error.path }),
           case .object(let object) = instance, let key = object.keys.first(where: { childPath(here, $0) == tag.error.path }) {
            var allowed: [JSONValue] = []
            for value in tags.flatMap(\.allowed) where !allowed.contains(value) { allowed.append(value) }
            let shown = allowed.prefix(12).map { $0.excerpt(limit: 40) }.joined(separator: ", ") + (allowed.count > 12 ? ", …" : "")
            failures.append(Failure(
                error: JSONValidationError(path: tag.error.path, keyword: tag.error.keyword,
                                           message: "expected one of \(shown), got \(object[key]?.excerpt() ?? "nothing")"),
                allowed: allowed))
            return
        }
        let shown = (candidates.isEmpty ? Array(outcomes.indices) : candidates).prefix(3)
        let summary = shown.compactMap { i in outcomes[i].first.map { "option \(i + 1): \($0.error)" } }.joined(separator: "; ")
        report(keyword, "does not match any of the \(branches.count) alternatives of \(keyword)" + (summary.isEmpty ? "" : " (\(summary))"))
    }

    func childPath(_ parent: String, _ key: String) -> String {
        parent + (Self.isIdentifier(key) ? "." + key : "[" + JSONValue.string(key).serialized() + "]")
    }

    /// The `type` a branch declares directly or through `$ref`s, for "expected string or null" messages.
    private func declaredTypes(of index: Int, hops: Int = 0) -> JSONTypeSet {
        var set = JSONTypeSet()
        if nodes[index].acceptsNull { set.insert(.null) }
        for keyword in nodes[index].keywords {
            switch keyword {
            case .types(let types): set.formUnion(types)
            case .ref(let target, _) where hops < 8: set.formUnion(declaredTypes(of: target, hops: hops + 1))
            default: break
            }
        }
        return set
    }
}
