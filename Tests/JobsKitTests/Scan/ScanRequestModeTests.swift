import Foundation
import Core
import Extractors
import JobsKit
import TestSupport
import Testing

/// The request mode as the CLI chooses it: `scan` makes one combined request per conversation window unless
/// `--per-feature` or `MESSAGEAI_REQUEST_MODE=per-feature` asks for one per feature; the run records its mode.
@Suite("Scan: the request mode from the command line", .serialized)
struct ScanRequestModeTests {
    struct Scanned {
        let schemaNames: [String]
        let json: JSONValue
        let recordedMode: String?
    }

    static func scan(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> Scanned {
        try await TestDatabase.with(maxConnections: 4) { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 3, active: 3, newMessages: 4), into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let env = ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                       "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"].merging(environment) { $1 }
            let prompts = RepositoryPaths.root.appendingPathComponent("prompts").path
            let run = try await JobsBinary.run(["scan", "--provider", "openai", "--prompts", prompts, "--no-assist", "--no-prefilter", "--json"]
                                                  + arguments, environment: env)
            #expect(run.code == 0, "\(run.stderr)")
            let row = try await db.pool.query("SELECT options->>'request_mode' AS mode FROM job_runs WHERE kind = 'scan'")
            return Scanned(schemaNames: server.requests.map(ScanRequests.feature), json: try JSONValue.parse(run.stdout),
                           recordedMode: (try row.first?.decode("mode", as: String?.self)) ?? nil)
        }
    }

    @Test func combinedIsTheDefault() async throws {
        let scanned = try await Self.scan()
        #expect(scanned.schemaNames == Array(repeating: "combined", count: 3), "\(scanned.schemaNames)")
        #expect(scanned.json["mode"] == "combined")
        #expect(scanned.recordedMode == "combined")
    }

    @Test func perFeatureByFlagOrSetting() async throws {
        for (arguments, environment) in [(["--per-feature"], [:]), ([], ["MESSAGEAI_REQUEST_MODE": "per-feature"])] {
            let scanned = try await Self.scan(arguments, environment: environment)
            #expect(scanned.schemaNames.count == 3 * FeatureRegistry.shipping.ids.count, "\(arguments) \(environment)")
            #expect(Set(scanned.schemaNames) == Set(FeatureRegistry.shipping.ids.map(\.rawValue)))
            #expect(scanned.json["mode"] == "per-feature")
            #expect(scanned.recordedMode == "per-feature")
        }
    }

    @Test func theFlagWinsOverTheSetting() async throws {
        let scanned = try await Self.scan(["--combined"], environment: ["MESSAGEAI_REQUEST_MODE": "per-feature"])
        #expect(scanned.schemaNames == Array(repeating: "combined", count: 3))
    }
}
