import Yams

/// Reads YAML into JSON values without YAML 1.1's surprises.
///
/// Plain scalars follow the YAML 1.2 JSON schema, narrowed so nothing a parent types into a fixture
/// changes meaning: `null`/`~`/empty → null, `true`/`false` → bool, decimal integers without leading
/// zeros → integer, decimal floats → number, everything else — `17:30`, `2026-04-17`, `no`, `on`,
/// `0123`, `.inf` — stays a string. Quoted and block scalars are always strings. Explicit `!!str`,
/// `!!int`, `!!float`, `!!bool`, `!!null` tags are honoured; other tags are errors.
///
/// Reading is bounded: aliases are expanded while the JSON is built, so a few hundred bytes of nested aliases (an
/// "alias bomb") would otherwise become billions of nodes. `Limits` caps the nodes built, the alias references
/// expanded and the nesting depth; past any of them the file is refused with its line.
package enum YAMLJSON {
    /// Bounds on one YAML file, far above any prompt, fixture or price table of this project.
    package struct Limits: Sendable {
        /// Nodes (scalars, sequences, mappings, keys) after aliases are expanded.
        var maxNodes = 100_000
        /// References to an anchor (`*name`), each counted every time it is expanded.
        var maxAliases = 1_000
        /// Nested sequences and mappings.
        var maxDepth = 64
        package init() {}
    }

    package static func parse(_ text: String, file: String, limits: Limits = Limits()) throws(FileProblem) -> YAMLDocument {
        // The parser stays alive while the tree is walked: nodes hold their anchors weakly, and the walk counts an
        // anchored node met again as an alias being expanded.
        let parser: Parser
        let node: Node?
        do {
            parser = try Parser(yaml: text, resolver: resolver)
            node = try parser.singleRoot()
        } catch {
            throw convert(error, file: file)
        }
        defer { withExtendedLifetime(parser) {} }
        guard let node else {
            return YAMLDocument(file: file, root: .null, locations: [[]: YAMLLocation(line: 1, column: 1, keyLine: 1, isBlockScalar: false)])
        }
        var builder = Builder(file: file, limits: limits)
        let root = try builder.value(of: node, path: [], keyLine: nil)
        return YAMLDocument(file: file, root: root, locations: builder.locations)
    }

    /// Resolves plain scalars only; anything not matched becomes `!!str`.
    static let resolver: Resolver = {
        // swiftlint:disable:next force_try
        try! Resolver.basic
            .appending(.null, "^(?:~|null|Null|NULL|)$")
            .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
            .appending(.int, "^[-+]?(?:0|[1-9][0-9]*)$")
            .appending(.float, "^[-+]?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$")
    }()

    private static func convert(_ error: any Error, file: String) -> FileProblem {
        guard let error = error as? YamlError else {
            return FileProblem(file: file, line: 0, column: 0, message: "YAML: \(error)")
        }
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let where_ = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return FileProblem(file: file, line: mark.line, column: mark.column, message: "YAML syntax: \(problem)\(where_)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return FileProblem(file: file, line: context.mark.line, column: context.mark.column, message: "duplicate key \(keys) in a mapping")
        case .reader(let problem, let offset, _, let yaml):
            let line = offset.map { yaml.utf8.prefix($0).filter { $0 == UInt8(ascii: "\n") }.count + 1 } ?? 0
            return FileProblem(file: file, line: line, column: 0, message: "YAML: \(problem)")
        default:
            return FileProblem(file: file, line: 0, column: 0, message: "YAML: \(error)")
        }
    }

    /// A node's line and column (Yams' `Mark` cannot be built outside Yams).
    private struct Position {
        let line: Int
        let column: Int
        init(_ mark: Mark?, or fallback: Position? = nil) {
            line = mark?.line ?? fallback?.line ?? 0
            column = mark?.column ?? fallback?.column ?? 0
        }
    }

    private struct Builder {
        let file: String
        let limits: Limits
        var locations: [[JSONPathComponent]: YAMLLocation] = [:]
        var nodes = 0
        var aliases = 0
        /// Anchors met so far: meeting an anchored node again means an alias to it is being expanded.
        var anchors: Set<String> = []

        init(file: String, limits: Limits) {
            self.file = file
            self.limits = limits
        }

        /// Counts `node` against the limits before anything of it is built.
        private mutating func count(_ node: Node, mark: Position, depth: Int) throws(FileProblem) {
            nodes += 1
            if nodes > limits.maxNodes {
                throw error(mark, "more than \(limits.maxNodes) YAML nodes once aliases are expanded (an alias bomb?); refused")
            }
            if let anchor = node.anchor?.rawValue, !anchors.insert(anchor).inserted {
                aliases += 1
                if aliases > limits.maxAliases {
                    throw error(mark, "more than \(limits.maxAliases) YAML alias references expanded ('*\(anchor)'; an alias bomb?); refused")
                }
            }
            if depth > limits.maxDepth {
                throw error(mark, "YAML nested more than \(limits.maxDepth) levels deep; refused")
            }
        }

        mutating func value(of node: Node, path: [JSONPathComponent], keyLine: Int?) throws(FileProblem) -> JSONValue {
            let mark = Position(node.mark)
            try count(node, mark: mark, depth: path.count)
            var isBlock = false
            if case .scalar(let scalar) = node { isBlock = scalar.style == .literal || scalar.style == .folded }
            locations[path] = YAMLLocation(line: mark.line, column: mark.column, keyLine: keyLine ?? mark.line, isBlockScalar: isBlock)
            switch node {
            case .scalar(let scalar):
                return try self.scalar(scalar, mark: mark, path: path)
            case .sequence(let sequence):
                var items: [JSONValue] = []
                for (index, item) in sequence.enumerated() {
                    items.append(try value(of: item, path: path + [.index(index)], keyLine: nil))
                }
                return .array(items)
            case .mapping(let mapping):
                var object = JSONObject()
                for (keyNode, valueNode) in mapping {
                    guard case .scalar(let keyScalar) = keyNode else {
                        throw error(Position(keyNode.mark, or: mark), "mapping keys must be plain strings (\(JSONPath.display(path)))")
                    }
                    let key = keyScalar.string
                    try count(keyNode, mark: Position(keyNode.mark, or: mark), depth: path.count + 1)
                    if key == "<<", keyScalar.style == .plain {
                        throw error(Position(keyNode.mark, or: mark), "YAML merge keys ('<<') are not supported; write the keys out")
                    }
                    if object[key] != nil {
                        throw error(Position(keyNode.mark, or: mark), "duplicate key '\(key)'")
                    }
                    object[key] = try value(of: valueNode, path: path + [.key(key)], keyLine: keyNode.mark?.line)
                }
                return .object(object)
            case .alias(let alias):
                throw error(Position(alias.mark, or: mark), "unresolved YAML alias")
            }
        }

        private func scalar(_ scalar: Node.Scalar, mark: Position, path: [JSONPathComponent]) throws(FileProblem) -> JSONValue {
            let text = scalar.string
            let tag = Node.scalar(scalar).tag.rawValue
            switch tag {
            case Tag.Name.str.rawValue:
                return .string(text)
            case Tag.Name.null.rawValue:
                return .null
            case Tag.Name.bool.rawValue:
                switch text.lowercased() {
                case "true": return .bool(true)
                case "false": return .bool(false)
                default: throw error(mark, "'\(text)' is not a boolean (\(JSONPath.display(path)))")
                }
            case Tag.Name.int.rawValue:
                if let integer = Int64(text) { return .integer(integer) }
                if let number = Double(text), number.isFinite { return .number(number) }
                throw error(mark, "'\(text)' is not an integer (\(JSONPath.display(path)))")
            case Tag.Name.float.rawValue:
                if let number = Double(text), number.isFinite { return .number(number) }
                throw error(mark, "'\(text)' is not a finite number (\(JSONPath.display(path)))")
            default:
                throw error(mark, "unsupported YAML tag '\(tag)' (\(JSONPath.display(path)))")
            }
        }

        private func error(_ mark: Position, _ message: String) -> FileProblem {
            FileProblem(file: file, line: mark.line, column: mark.column, message: message)
        }
    }
}
