package import Foundation

/// The checkout the tests run from, for tests that read its files (prompts, schemas, fixtures, the README) or the
/// read-only `shared/` folder beside it. Found from this file's place: Sources/TestSupport/Paths/.
package enum RepositoryPaths {
    /// The package root: Package.swift, prompts/, schemas/, evals/.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
