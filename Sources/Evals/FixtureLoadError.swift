import YAMLKit

/// Every problem found while loading fixtures; a directory load reports all files' problems at once.
public struct FixtureLoadError: Error, Sendable, CustomStringConvertible {
    public let problems: [FileProblem]

    public init(problems: [FileProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
