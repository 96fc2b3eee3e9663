import Foundation
import Core
import TestSupport

/// The read-only `shared/` folder beside the package.
enum SharedFixtures {
    static let sharedDirectory = RepositoryPaths.root.deletingLastPathComponent().appendingPathComponent("shared")
    static let testSuiteDirectory = sharedDirectory.appendingPathComponent("json-schema-test-suite/tests/draft2020-12")
    static let openAPIFile = sharedDirectory.appendingPathComponent("openai-openapi/openapi.json")

    struct FixtureError: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Parses a JSON file; a missing or broken file is an error naming the path, so the test fails rather than skips.
    static func loadJSON(_ url: URL) throws(FixtureError) -> JSONValue {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError(description: "required fixture is missing: \(url.path) (expected shared/ beside the package root)")
        }
        do {
            return try JSONValue.parse(Data(contentsOf: url))
        } catch {
            throw FixtureError(description: "\(url.path): \(error)")
        }
    }

    /// openapi.json is 3 MB: parse it once per test process.
    static let openAPI: Result<JSONValue, FixtureError> = Result { () throws(FixtureError) in try loadJSON(openAPIFile) }
}
