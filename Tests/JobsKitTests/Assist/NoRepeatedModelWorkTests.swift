import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import Testing
import TestSupport

/// The assistant's model runs are paid for once per set of findings: a pass, `assist --changed` or a scan with
/// nothing new runs no model, a changed finding runs the model for its user only, and passes at the same time
/// never run the same user twice. Counted at the scripted OpenAI server.
@Suite struct NoRepeatedModelWorkTests {
    static let empty: JSONValue = ["summary": "Nothing new.", "conflicts": [], "pending_rsvps": [], "near_deadlines": [], "priority_messages": [], "suggested_actions": []]

    static func usersWithFindings(_ db: TestDatabase) async throws -> Int {
        try await db.pool.query(
            "SELECT count(DISTINCT user_id) AS n FROM assistant_findings WHERE status = 'open' AND NOT dismissed")[0].decode("n")
    }

    @Test func nothingNewRunsNoModelAndAChangedFindingRunsOnlyItsUser() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer(fallback: { _ in .chat(content: Self.empty.serialized()) })
            defer { server.stop() }
            let assistant = try AssistDemoScene.service(db, server)
            let first = try await ProactivePass(pool: db.pool, assistant: assistant).run(.all, now: AssistDemoScene.now)
            let users = try await Self.usersWithFindings(db)
            #expect(users >= 1 && first.narrated == users)
            #expect(server.requests.count == users)

            // assist --changed on an up-to-date database.
            let changed = try await ProactivePass(pool: db.pool, assistant: assistant).run(.changed, now: AssistDemoScene.now)
            #expect(changed.usersPassed >= users, "users with open findings are still looked at")
            #expect(changed.narrated + changed.narrationFailed == 0)
            #expect(changed.narrationSkipped == users)
            // A scan that found nothing new, with the pass after it.
            let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
            var scan = ScanService(pool: db.pool, engine: rules, options: ScanOptions())
            scan.proactive = ProactivePass(pool: db.pool, assistant: assistant)
            let rescan = try await scan.run(now: AssistDemoScene.now)
            #expect(rescan.proactive?.narrated == 0 && rescan.proactive?.narrationFailed == 0)
            #expect(server.requests.count == users, "no request after the first pass")

            // Moving the party changes Maria's conflict: her run, and only hers, happens again.
            try await db.pool.query(
                "UPDATE calendar_events SET time = '14:00', end_time = '16:00', updated_at = now() WHERE title ILIKE '%birthday party%'")
            let moved = try await ProactivePass(pool: db.pool, assistant: assistant).run(.changed, now: AssistDemoScene.now)
            #expect(moved.narrated >= 1)
            let ranFor = Set(try await db.pool.query("SELECT user_id FROM assistant_runs WHERE run_id = $1", [moved.runID])
                .map { try $0.decode("user_id", as: UUID.self) })
            #expect(ranFor.contains(AssistDemoScene.maria))
            let again = try await ProactivePass(pool: db.pool, assistant: assistant).run(.changed, now: AssistDemoScene.now)
            #expect(again.narrated + again.narrationFailed == 0)
        }
    }

    @Test func aFailedRunIsTriedAgainByTheNextPass() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let failing = try FakeOpenAIServer(fallback: { _ in .error(status: 400, message: "model not available") })
            defer { failing.stop() }
            let failed = try await ProactivePass(pool: db.pool, assistant: try AssistDemoScene.service(db, failing))
                .run(.all, now: AssistDemoScene.now)
            #expect(failed.narrationFailed >= 1 && failed.narrated == 0)
            let server = try FakeOpenAIServer(fallback: { _ in .chat(content: Self.empty.serialized()) })
            defer { server.stop() }
            let retried = try await ProactivePass(pool: db.pool, assistant: try AssistDemoScene.service(db, server))
                .run(.changed, now: AssistDemoScene.now)
            #expect(retried.narrated == failed.narrationFailed)
        }
    }

    /// The second pass starts while the first is waiting for the model, after the first released its users' queue
    /// leases: without a claim on the assistant run it would run every user again.
    @Test func concurrentPassesNeverRunTheSameUserTwice() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer(fallback: { _ in .delay(1.5, then: .chat(content: Self.empty.serialized())) })
            defer { server.stop() }
            let assistant = try AssistDemoScene.service(db, server)
            let now = AssistDemoScene.now
            let first = Task { try await ProactivePass(pool: db.pool, assistant: assistant).run(.all, now: now) }
            // Wait until the first pass has written its findings, released its users and asked the model.
            for _ in 0..<300 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            #expect(!server.requests.isEmpty)
            async let second = ProactivePass(pool: db.pool, assistant: assistant).run(.all, now: now)
            async let third = ProactivePass(pool: db.pool, assistant: assistant).run(.changed, now: now)
            let results = try await [first.value, second, third]
            let users = try await Self.usersWithFindings(db)
            #expect(results.map(\.narrated).reduce(0, +) == users)
            #expect(server.requests.count == users, "one model run per user over three passes")
            #expect(results[1].narrationSkipped + results[2].narrationSkipped >= 1)
            let perUser = try await db.pool.query("SELECT user_id, count(*) AS n FROM assistant_runs GROUP BY user_id")
            #expect(try perUser.allSatisfy { try $0.decode("n", as: Int.self) == 1 })
        }
    }
}
