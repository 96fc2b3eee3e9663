
/// Where a YAML node was written, so problems found after parsing can still point at a line.
package struct YAMLLocation: Sendable, Hashable {
    /// Line and column of the value (for block scalars: the `|` or `>` indicator).
    package let line: Int
    package let column: Int
    /// Line of the mapping key that owns the value; equals `line` for the root and array items.
    package let keyLine: Int
    /// Literal (`|`) or folded (`>`) block scalar: its text starts on the line after `line`.
    let isBlockScalar: Bool
}

/// A YAML file as JSON plus the source position of every node.
package struct YAMLDocument: Sendable {
    package let file: String
    package let root: JSONValue
    let locations: [[JSONPathComponent]: YAMLLocation]

    package init(file: String, root: JSONValue, locations: [[JSONPathComponent]: YAMLLocation]) {
        self.file = file
        self.root = root
        self.locations = locations
    }

    package func location(at path: [JSONPathComponent]) -> YAMLLocation? { locations[path] }

    /// The value's line, or the nearest enclosing node's line when the path does not exist
    /// (a missing property is best reported at its parent object).
    package func line(at path: [JSONPathComponent]) -> Int? {
        var path = path
        while true {
            if let location = locations[path] { return location.line }
            if path.isEmpty { return nil }
            path.removeLast()
        }
    }

    /// The key's line for a mapping member (for "unknown key" and "wrong type" messages), else as `line(at:)`.
    package func keyLine(at path: [JSONPathComponent]) -> Int? {
        locations[path]?.keyLine ?? line(at: path)
    }

    /// The source line of line `offset` (0-based) inside a string value.
    ///
    /// Exact for literal blocks (`|`) and single-line values; approximate for folded and multi-line
    /// flow scalars, whose line breaks YAML rewrites.
    package func line(at path: [JSONPathComponent], textLine offset: Int) -> Int? {
        guard let location = locations[path] else { return line(at: path) }
        return location.line + (location.isBlockScalar ? 1 : 0) + offset
    }

    /// The line for a validator's path string such as `$.messages[3].sender` or `/messages/3/sender`.
    package func line(forPath text: String) -> Int? {
        guard let path = JSONPath.parse(text) else { return nil }
        return line(at: path)
    }

    /// `file:line: message`, the way every problem in this package is printed.
    package func error(at path: [JSONPathComponent], _ message: String) -> FileProblem {
        FileProblem(file: file, line: line(at: path) ?? 0, column: 0, message: message)
    }
}
