import YAMLKit

/// Every problem found while loading a prompt directory, reported together so one run fixes all.
public struct PromptLoadError: Error, Sendable, CustomStringConvertible {
    public let problems: [FileProblem]

    public init(problems: [FileProblem]) { self.problems = problems }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
