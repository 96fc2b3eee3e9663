package import Foundation

/// The CLI as a child process (`SpawnedProcess`: output in temporary files, every wait bounded, killed if a test
/// leaves it running), with no real key or limits from the developer's shell.
package enum ScanChild {
    package static func start(_ arguments: [String], environment: [String: String]) throws -> SpawnedProcess {
        try SpawnedProcess(ScanHarness.executable, arguments: arguments, adding: environment)
    }

    /// `scan` against the fake server with the openai provider and the repository's prompts.
    package static func scan(_ extra: [String], databaseURL: String, baseURL: URL) throws -> SpawnedProcess {
        try start(
            ["scan", "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--no-prefilter", "--json"] + extra,
            environment: ["DATABASE_URL": databaseURL, "OPENAI_BASE_URL": baseURL.absoluteString, "OPENAI_API_KEY": "sk-test-not-a-real-key",
                          "LOG_LEVEL": "error"])
    }
}
