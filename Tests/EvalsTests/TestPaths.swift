import Foundation

/// Locations of the repository's eval data, found from this source file so tests run from any directory.
enum TestPaths {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EvalsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static var fixtures: String { repoRoot.appendingPathComponent("evals/fixtures").path }
    static var schema: String { repoRoot.appendingPathComponent("schemas/eval-fixture.schema.json").path }

    /// A fresh temporary directory for files a test writes.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("evals-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
