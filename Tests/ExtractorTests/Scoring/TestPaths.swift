import Foundation
import TestSupport

/// Locations of the repository's eval data (under `RepositoryPaths.root`, so tests run from any directory).
enum TestPaths {
    static var repoRoot: URL { RepositoryPaths.root }

    static var fixtures: String { repoRoot.appendingPathComponent("evals/fixtures").path }
    static var schema: String { repoRoot.appendingPathComponent("schemas/eval-fixture.schema.json").path }

    /// A fresh temporary directory for files a test writes.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("evals-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
