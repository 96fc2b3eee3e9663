import AgentRuntime
import Core
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// `runs show` says what a run was (issue 48 item 4): an extract's conversation and whether it was a dry run (marked
/// in `runs` too, failed or not), the users a partial proactive pass failed for, and the conversations a stopped scan
/// gave back (deferred) or never reached. Read through the binary, from rows the real services wrote.
@Suite("runs: what each run was", .serialized)
struct RunSubjectTests {
    @Test("an extract's run names its conversation; a dry run, succeeded or failed, is marked in `runs` and `runs --failed`")
    func extractDryRuns() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let birthday = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
            let dry = try await JobsBinary.run(["extract", "--provider", "rules", "--dry-run", "--conversation", birthday], db)
            #expect(dry.code == 0, "\(dry.stderr)")
            let server = try FakeOpenAIServer(fallback: { _ in .error(status: 400, message: "model not available") })
            defer { server.stop() }
            let failed = try await JobsBinary.run(["extract", "--provider", "openai", "--dry-run", "--conversation", birthday], db,
                                            ["OPENAI_BASE_URL": server.baseURL.absoluteString])
            #expect(failed.code != 0, "\(failed.stdout)")

            let runs = try await JobsBinary.json([RunHistory.Run].self, ["runs"], db)
            #expect(runs.count == 2 && runs.allSatisfy { $0.dryRun && $0.conversationID == DemoDataset.conversationIDs.birthday })
            let failedList = try await JobsBinary.run(["runs", "--failed"], db)
            #expect(failedList.stdout.contains("extract (dry run)  failed"), "\(failedList.stdout)")
            #expect(failedList.stdout.contains("conversation \(birthday); dry run: answers shown, nothing written"), "\(failedList.stdout)")
            let id = try #require(runs.first { $0.status == "failed" }).id.uuidString.lowercased()
            let shown = try await JobsBinary.run(["runs", "show", String(id.prefix(8))], db)
            #expect(shown.stdout.contains("\(id)  extract (dry run)  failed") && shown.stdout.contains("conversation \(birthday)"), "\(shown.stdout)")
        }
    }

    @Test("extract --json gives each item's date phrase and the text of the messages it cites (its evidence)")
    func extractJSONHasEvidence() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let birthday = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
            let result = try await JobsBinary.run(["extract", "--provider", "rules", "--dry-run", "--json", "--conversation", birthday], db)
            #expect(result.code == 0, "\(result.stderr)")
            let json = try JSONValue.parse(result.stdout)
            let event = try #require(json["extraction"]?["events"]?.arrayValue?.first { $0["title"]?.stringValue?.contains("birthday") == true })
            let phrase = try #require(event["date_phrase"]?.stringValue)
            let cited = try #require(event["sources"]?.arrayValue?.first?.stringValue)
            let evidence = try #require(json["evidence"]?.arrayValue)
            let quoted = try #require(evidence.first { $0["message_id"]?.stringValue == cited })
            #expect(quoted["text"]?.stringValue?.contains(phrase) == true, "the date phrase is in the cited message: \(quoted)")
            #expect(quoted["sender_id"]?.stringValue != nil && quoted["sent_at"]?.stringValue != nil)
        }
    }

    @Test("a partial proactive pass lists each user it failed for, with why")
    func partialAssistNamesItsUsers() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer(fallback: { _ in .error(status: 400, message: "model not available") })
            defer { server.stop() }
            let pass = try await ProactivePass(pool: db.pool, assistant: try AssistDemoScene.service(db, server)).run(.all, now: AssistDemoScene.now)
            #expect(pass.narrationFailed >= 1 && pass.usersPassed > 0)
            let detail = try await JobsBinary.json(RunHistory.Detail.self, ["runs", "show", pass.runID.postgresValue], db)
            #expect(detail.run.status == "partial" && detail.run.mode == "proactive_pass")
            #expect(detail.failures.count == pass.narrationFailed, "\(detail.failures)")
            #expect(detail.failures.allSatisfy { $0.userID != nil && $0.error.contains("model not available") }, "\(detail.failures)")
            let text = try await JobsBinary.run(["runs", "show", pass.runID.postgresValue], db)
            #expect(!text.stdout.contains("no failures recorded"), "\(text.stdout)")
            #expect(text.stdout.contains("- user \(try #require(detail.failures.first?.userID).postgresValue): the assistant gave no valid answer"), "\(text.stdout)")
        }
    }

    @Test("a scan stopped by an outage lists the conversations it gave back and those it never reached")
    func stoppedScanListsWhatItLeft() async throws {
        try await TestDatabase.with { db in
            let total = 30
            try await ScanHarness.load(try ScanHarness.workload(conversations: total, active: total, newMessages: 2, seed: 48), into: db)
            let baseURL = URL(string: "http://127.0.0.1:\(try FreePort.find())/v1")!
            let engine = try ModelOutageTests.engine(baseURL: baseURL, transport: AsyncHTTPClientTransport.shared)
            let summary = try await ScanService(pool: db.pool, engine: engine, options: ModelOutageTests.options()).run(now: Reliability.now)
            #expect(summary.outage != nil && summary.conversations == 0 && summary.failed == 0)
            #expect(summary.deferred >= 1 && summary.deferred < total)

            let detail = try await JobsBinary.json(RunHistory.Detail.self, ["runs", "show", summary.runID.postgresValue], db)
            #expect(detail.deferred == summary.deferred && detail.deferredConversations.count == summary.deferred)
            let unreached = try #require(detail.unreached)
            #expect(unreached + summary.deferred == total, "every pending conversation is either deferred or unreached")
            #expect(detail.unreachedConversations.count == min(unreached, RunFailure.recordedLimit))
            #expect(Set(detail.unreachedConversations).isDisjoint(with: detail.deferredConversations))
            let text = try await JobsBinary.run(["runs", "show", summary.runID.postgresValue], db)
            #expect(text.stdout.contains("\(summary.deferred) conversation(s) deferred"), "\(text.stdout)")
            #expect(text.stdout.contains("\(unreached) conversation(s) unreached"), "\(text.stdout)")
            #expect(text.stdout.contains("- conversation \(try #require(detail.unreachedConversations.first).postgresValue)"))
        }
    }
}
