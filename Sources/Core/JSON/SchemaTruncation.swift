/// One array cut down to its schema's `maxItems`: where, and how many items it had.
package struct ArrayCut: Sendable, Hashable, CustomStringConvertible {
    /// The array's JSON path in the instance: `$.events`, `$.rsvps[0].responses`.
    package let path: String
    package let kept: Int
    package let had: Int

    package init(path: String, kept: Int, had: Int) {
        self.path = path
        self.kept = kept
        self.had = had
    }

    /// `$.events: kept the first 10 of 12 items`
    package var description: String { "\(path): kept the first \(kept) of \(had) items" }
}

extension JSONSchema {
    /// `instance` with every array longer than its schema's `maxItems` cut to its first `maxItems` items, and the
    /// cuts made. A model that lists one item too many has still given the items before it: a page of an answer
    /// is kept rather than refused whole. Follows `properties`, `items`, `prefixItems`, `$ref` and `allOf`; values
    /// under `anyOf`/`oneOf` are left as they are (which branch applies is the validator's question).
    package func truncatingArrays(_ instance: JSONValue) -> (value: JSONValue, cuts: [ArrayCut]) {
        var cuts: [ArrayCut] = []
        var visiting: Set<Int> = []
        let value = truncate(instance, node: compiled.rootIndex, path: "$", cuts: &cuts, visiting: &visiting)
        return (value, cuts)
    }

    private func truncate(_ instance: JSONValue, node index: Int, path: String, cuts: inout [ArrayCut],
                          visiting: inout Set<Int>) -> JSONValue {
        // A `$ref` cycle that does not move into the value would never end; each node is entered once per value.
        guard visiting.insert(index).inserted else { return instance }
        defer { visiting.remove(index) }
        var value = instance
        for keyword in compiled.nodes[index].keywords {
            switch (keyword, value) {
            case (.maxItems(let limit), .array(let items)) where items.count > limit:
                cuts.append(ArrayCut(path: path, kept: limit, had: items.count))
                value = .array(Array(items.prefix(limit)))
            default: break
            }
        }
        for keyword in compiled.nodes[index].keywords {
            switch (keyword, value) {
            case (.object(let rules), .object(let object)):
                var out = object
                for (key, child) in object {
                    guard let sub = rules.properties[key] else { continue }
                    var inner: Set<Int> = []
                    out[key] = truncate(child, node: sub, path: Self.childPath(path, key), cuts: &cuts, visiting: &inner)
                }
                value = .object(out)
            case (.array(let prefixItems, let items), .array(let elements)):
                value = .array(elements.enumerated().map { offset, element in
                    guard let sub = offset < prefixItems.count ? prefixItems[offset] : items else { return element }
                    var inner: Set<Int> = []
                    return truncate(element, node: sub, path: "\(path)[\(offset)]", cuts: &cuts, visiting: &inner)
                })
            case (.ref(let target, _), _):
                value = truncate(value, node: target, path: path, cuts: &cuts, visiting: &visiting)
            case (.allOf(let targets), _):
                for target in targets { value = truncate(value, node: target, path: path, cuts: &cuts, visiting: &visiting) }
            default: break
            }
        }
        return value
    }

    /// `$.events`, or `$["odd key"]` for a key that is not an identifier (as validation errors write paths).
    private static func childPath(_ path: String, _ key: String) -> String {
        SchemaEvaluator(nodes: [], collecting: false).childPath(path, key)
    }
}
