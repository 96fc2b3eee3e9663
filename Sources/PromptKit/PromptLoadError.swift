/// One thing wrong with a prompt file, at the line an author should look at.
public struct PromptProblem: Sendable, Hashable, CustomStringConvertible {
    public let file: String
    /// 1-based; 0 when the problem concerns the whole file.
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `prompts/decisions.yaml:14: unknown variable '{{todya}}' (declared: ...)`
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Every problem found while loading a prompt directory, reported together so one run fixes all.
public struct PromptLoadError: Error, Sendable, CustomStringConvertible {
    public let problems: [PromptProblem]

    public init(problems: [PromptProblem]) { self.problems = problems }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
