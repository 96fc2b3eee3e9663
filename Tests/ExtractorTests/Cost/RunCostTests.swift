import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Run cost: list-price money on every run")
struct RunCostTests {
    @Test func theScanRecordsAndPrintsItsCost() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 4, active: 2)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            #expect(summary.requests == 10)
            // 10 requests of 200 prompt + 30 completion tokens at gpt-4o-mini's $0.15 / $0.60 per million.
            let expected = 10 * (200 * 0.15 + 30 * 0.60) / 1_000_000
            let cost = try #require(summary.cost?.usd)
            #expect(abs(cost - expected) < 1e-9)
            #expect(ScanReport.text(summary).contains("Estimated cost: $0.0005 (gpt-4o-mini, list prices of "))
            let recorded: Double = try await db.pool.query(
                "SELECT estimated_cost_usd::float8 AS usd FROM job_runs WHERE id = $1", [summary.runID])[0].decode("usd")
            #expect(abs(recorded - expected) < 1e-6)
        }
    }

    @Test func aModelWithoutAPriceIsUnknownNotGuessed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runcost-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("pricing"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent("prompts/pricing/openai.yaml"),
                                         to: directory.appendingPathComponent("pricing/openai.yaml"))
        let usage = TokenUsage(promptTokens: 1_000_000, completionTokens: 0, cachedPromptTokens: 500_000)
        let known = RunCost.estimate(usage, model: "gpt-4o-mini", promptDirectory: directory)
        #expect(known.usd.map { abs($0 - (0.5 * 0.15 + 0.5 * 0.075)) < 1e-9 } == true)
        let unknown = RunCost.estimate(usage, model: "my-local-llama", promptDirectory: directory)
        #expect(unknown.usd == nil)
        #expect(unknown.line.hasPrefix("Estimated cost: unknown (no price for model 'my-local-llama'"))
        let noFile = RunCost.estimate(usage, model: "gpt-4o-mini", promptDirectory: directory.appendingPathComponent("pricing"))
        #expect(noFile.usd == nil && noFile.line.contains("no price file"))
        // Nothing sent costs nothing, whatever the model (the rule-based provider).
        #expect(RunCost.estimate(TokenUsage(), model: "rules", promptDirectory: nil).usd == 0)
    }
}
