import Core
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

@Suite("runs: what ran, what failed and what it cost, from job_runs")
struct RunsCommandTests {
    @Test("`runs --json` parses and lists the scan with its cost, tokens, counts, build and prompts")
    func listsTheScanWithItsCost() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 4, active: 2), into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            let expected = try #require(summary.cost?.usd)
            #expect(expected > 0)

            let runs = try await JobsBinary.json([RunHistory.Run].self, ["runs", "--since", "24h"], db)
            let scan = try #require(runs.first { $0.id == summary.runID })
            #expect(scan.kind == "scan" && scan.status == "succeeded")
            #expect(abs((scan.costUSD ?? -1) - expected) < 1e-6)
            #expect(scan.conversations == summary.conversations && scan.conversationsFailed == 0)
            #expect(scan.modelRequests == summary.requests)
            #expect(scan.promptTokens == Int64(summary.usage.promptTokens) && scan.completionTokens == Int64(summary.usage.completionTokens))
            #expect(scan.itemsTotal == summary.items.values.reduce(0, +))
            #expect(scan.buildVersion != nil && scan.promptSetSHA256?.count == 64)
            #expect(scan.prompts.contains { $0.id == "calendar_events" })
            #expect(scan.finishedAt != nil && scan.seconds >= 0)

            let text = try await JobsBinary.run(["runs"], db)
            #expect(text.code == 0, "stderr: \(text.stderr)")
            #expect(text.stdout.contains("\(summary.runID.postgresValue)  scan  succeeded"))
            #expect(text.stdout.contains(String(format: "cost $%.4f", expected)))
            // Nothing failed, and nothing started after tomorrow.
            #expect(try await JobsBinary.json([RunHistory.Run].self, ["runs", "--failed"], db).isEmpty)
            let tomorrow = ISO8601Instant.string(Date().addingTimeInterval(86_400))
            #expect(try await JobsBinary.json([RunHistory.Run].self, ["runs", "--since", tomorrow], db).isEmpty)
            let bad = try await JobsBinary.run(["runs", "--since", "yesterday"], db)
            #expect(bad.code != 0 && bad.stderr.contains("is neither a date"))
        }
    }

    @Test("`runs show` lists a failed scan's conversations with the feature and the error; unpriced cost is unknown")
    func showsFailuresWithConversationAndFeature() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 4, active: 2), into: db)
            // The model refuses every decisions request: each conversation fails, naming that feature.
            let server = try FakeOpenAIServer { request in
                ScanRequests.feature(request) == "decisions" ? .refusal("I cannot help with that") : ScanRequests.answer(request)
            }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            #expect(summary.failed == 2)
            // An unpriced run (as after a crash, or a model without a price) shows "unknown", never $0.
            try await db.pool.query("UPDATE job_runs SET estimated_cost_usd = NULL WHERE id = $1", [summary.runID])

            let failed = try await JobsBinary.json([RunHistory.Run].self, ["runs", "--failed"], db)
            #expect(failed.map(\.id) == [summary.runID])
            #expect(failed.first?.costUSD == nil)
            let detail = try await JobsBinary.json(RunHistory.Detail.self, ["runs", "show", summary.runID.postgresValue], db)
            #expect(detail.failures.count == 2)
            #expect(Set(detail.failures.compactMap(\.conversationID)) == Set(summary.failures.map(\.conversationID)))
            #expect(detail.failures.allSatisfy { $0.feature == "decisions" && $0.error.contains("refused") })
            #expect(detail.unlisted == 0)

            let text = try await JobsBinary.run(["runs", "show", summary.runID.postgresValue], db)
            #expect(text.code == 0, "stderr: \(text.stderr)")
            #expect(text.stdout.contains("cost unknown"))
            let first = try #require(summary.failures.first).conversationID.postgresValue
            #expect(text.stdout.contains("- conversation \(first), feature decisions: decisions: the model refused"))
            let missing = try await JobsBinary.run(["runs", "show", UUID().uuidString], db)
            #expect(missing.code != 0 && missing.stderr.contains("no run with id"))
        }
    }

    @Test("--since reads dates, timestamps and durations, and refuses anything else")
    func sinceParsing() throws {
        let now = try #require(ISO8601Instant.parse("2026-11-25T07:00:00Z"))
        #expect(try RunHistory.since("24h", now: now) == ISO8601Instant.parse("2026-11-24T07:00:00Z"))
        #expect(try RunHistory.since("90m", now: now) == ISO8601Instant.parse("2026-11-25T05:30:00Z"))
        #expect(try RunHistory.since("7d", now: now) == ISO8601Instant.parse("2026-11-18T07:00:00Z"))
        #expect(try RunHistory.since("2026-11-24", now: now) == ISO8601Instant.parse("2026-11-24T00:00:00Z"))
        #expect(try RunHistory.since("2026-11-24T06:00:00+01:00", now: now) == ISO8601Instant.parse("2026-11-24T05:00:00Z"))
        for text in ["last night", "-3h", "2026-13-01"] {
            let error = #expect(throws: JobsError.self) { try RunHistory.since(text, now: now) }
            #expect(error?.code == .invalidInput)
            #expect(error?.description == "'\(text)' is neither a date (2026-11-24), a timestamp (2026-11-24T06:00:00Z) nor a duration (90m, 24h, 7d)")
        }
    }
}
