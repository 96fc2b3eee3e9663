/// One thing wrong with a fixture, located well enough to jump to it: `file:line: field: message`.
public struct FixtureProblem: Sendable, Hashable, CustomStringConvertible {
    public let file: String
    /// 1-based; 0 when no line is known (an unreadable file).
    public let line: Int
    /// The field path as people write it: `messages[0].sender`, `(root)` for the whole document.
    public let field: String
    public let message: String

    public init(file: String, line: Int, field: String, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    public var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        return field.isEmpty ? "\(place): \(message)" : "\(place): \(field): \(message)"
    }
}

/// Every problem found while loading fixtures; a directory load reports all files' problems at once.
public struct FixtureLoadError: Error, Sendable, CustomStringConvertible {
    public let problems: [FixtureProblem]

    public init(problems: [FixtureProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
