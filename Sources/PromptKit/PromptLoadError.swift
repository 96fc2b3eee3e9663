package import Core

/// Every problem found while loading a prompt directory, reported together so one run fixes all.
package struct PromptLoadError: Error, Sendable, CustomStringConvertible {
    package let problems: [FileProblem]

    package init(problems: [FileProblem]) { self.problems = problems }

    /// One line per problem.
    package var description: String { problems.map(\.description).joined(separator: "\n") }
}
