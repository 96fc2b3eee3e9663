import Foundation
import Testing
import TestSupport

/// Ids are parsed by the argument parser: a malformed id is a usage error naming the flag, not a crash.
@Suite("CLI id arguments")
struct IdArgumentTests {
    @Test(arguments: [
        ["request", "extract", "--conversation", "not-a-uuid"],
        ["request", "assist", "--user", "not-a-uuid"],
        ["extract", "--conversation", "not-a-uuid"],
        ["assist", "--user", "not-a-uuid"],
        ["batch", "collect", "--batch", "not-a-uuid"],
    ])
    func aMalformedIdIsAUsageError(arguments: [String]) async throws {
        let child = try await EvalChild.run(arguments + ["--database-url", "postgresql://127.0.0.1:1/none"], timeout: .seconds(30))
        #expect(!child.timedOut)
        #expect(child.status == 64, "exit status \(child.status), stderr: \(child.stderr)")
        let flag = arguments[arguments.count - 2]
        #expect(child.stderr.contains("The value 'not-a-uuid' is invalid for '\(flag)"), "stderr: \(child.stderr)")
    }
}
