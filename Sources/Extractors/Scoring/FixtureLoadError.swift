package import Core

/// Every problem found while loading fixtures; a directory load reports all files' problems at once.
package struct FixtureLoadError: Error, Sendable, CustomStringConvertible {
    package let problems: [FileProblem]

    package init(problems: [FileProblem]) {
        self.problems = problems
    }

    package var description: String { problems.map(\.description).joined(separator: "\n") }
}
