import Extractors
import Foundation
import JobsKit
import Postgres
import Synchronization
import Testing
import TestSupport
import JobsCLI

/// Every run ends with a true record in `job_runs`, whatever ends its process: SIGTERM closes the rows the process
/// has open before it exits; after SIGKILL the row's heartbeat stops and the next run of any kind marks it
/// `abandoned`, counting what it had committed. Real child processes of the CLI, against the scripted model.
@Suite("Runs: true records after signals")
struct RunRecordTests {
    struct Run: Sendable {
        let id: UUID, kind: String, status: String, processed: Int, error: String?, finished: Bool
    }

    static func runs(_ db: TestDatabase, kind: String? = nil) async throws -> [Run] {
        try await db.pool.query(
            """
            SELECT id, kind, status, conversations_processed, error, finished_at IS NOT NULL AS finished
            FROM job_runs WHERE $1::text IS NULL OR kind = $1 ORDER BY started_at
            """, [kind]).map {
            Run(id: try $0.decode("id"), kind: try $0.decode("kind"), status: try $0.decode("status"),
                processed: try $0.decode("conversations_processed"), error: try $0.decode("error"), finished: try $0.decode("finished"))
        }
    }

    static func child(_ arguments: [String], _ db: TestDatabase, _ server: FakeOpenAIServer, lease: Int = 2) throws -> SpawnedProcess {
        try SpawnedProcess(ScanHarness.executable, arguments: arguments, adding: [
            "DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
            "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error", "MESSAGEAI_RUN_LEASE_SECONDS": "\(lease)"])
    }

    /// Waits for the dead run's heartbeat to run out, then opens (and closes) a run of another kind.
    static func nextRun(_ db: TestDatabase, after seconds: Double) async throws {
        try await Task.sleep(for: .seconds(seconds))
        let recorder = JobRunRecorder(pool: db.pool)
        let id = try await recorder.start(.eval, provider: "rules", model: nil)
        try await recorder.finish(id, JobRunRecorder.Outcome(status: .succeeded))
    }

    /// The demo dated around the real clock (the child has no other), extracted by the rules: its users have
    /// findings for the child's assistant to run on.
    static func demoNow(_ db: TestDatabase) async throws {
        let now = Date()
        _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
        let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
        #expect(try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: now).failed == 0)
    }

    @Test func aSIGTERMedExtractClosesItsRunAndExits143() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { _ in .delay(60, then: .error(status: 500, message: "too late")) }
            defer { server.stop() }
            let child = try Self.child(
                ["extract", "--conversation", WorkerHarness.conversations.birthday.uuidString, "--provider", "openai",
                 "--prompts", WorkerHarness.promptsPath], db, server)
            _ = await server.waitForRequests(count: 1, timeout: .seconds(60))
            #expect(try await Self.runs(db, kind: "extract").map(\.status) == ["running"])
            child.kill(SIGTERM)
            let termination = try await child.waitForExit(timeout: 30)
            #expect(termination == .exit(143), "\(child.stderr)")
            let run = try #require(try await Self.runs(db, kind: "extract").first)
            #expect(run.status == "failed" && run.finished)
            #expect(run.error?.contains("SIGTERM") == true, "\(run.error ?? "nil")")
        }
    }

    @Test func aSIGKILLedAssistIsMarkedAbandonedByTheNextRunOfAnyKind() async throws {
        try await TestDatabase.with { db in
            try await Self.demoNow(db)
            let server = try FakeOpenAIServer { _ in .delay(60, then: .error(status: 500, message: "too late")) }
            defer { server.stop() }
            let child = try Self.child(["assist", "--all", "--provider", "openai", "--prompts", WorkerHarness.promptsPath], db, server)
            _ = await server.waitForRequests(count: 1, timeout: .seconds(60))
            child.kill(SIGKILL)
            #expect(try await child.waitForExit(timeout: 30) == .signal(SIGKILL))
            let open = try #require(try await Self.runs(db, kind: "assist").first)
            #expect(open.status == "running", "killed: nothing could close it")
            try await Self.nextRun(db, after: 2.5)
            let run = try #require(try await Self.runs(db, kind: "assist").first)
            #expect(run.status == "abandoned" && run.finished)
            #expect(run.error?.contains("abandoned") == true)
        }
    }

    @Test func aSIGKILLedScanIsAbandonedWithTheConversationsItCommittedCounted() async throws {
        try await TestDatabase.with { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 6, active: 6, newMessages: 3, seed: 241), into: db)
            // Two conversations are answered; every later request waits for the kill.
            let answered = Mutex(0)
            let server = try FakeOpenAIServer { request in
                let n = answered.withLock { count in
                    count += 1
                    return count
                }
                return n <= 2 ? ScanRequests.answer(request) : .delay(60, then: .error(status: 500, message: "too late"))
            }
            defer { server.stop() }
            let child = try Self.child(
                ["scan", "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--features", "calendar_events",
                 "--concurrency", "1", "--no-prefilter"], db, server)
            try await waitUntil(60, "two conversations committed") { try await ScanHarness.scannedConversations(db).count == 2 }
            _ = await server.waitForRequests(count: 3, timeout: .seconds(60))
            child.kill(SIGKILL)
            _ = try await child.waitForExit(timeout: 30)
            #expect(try await Self.runs(db, kind: "scan").first?.status == "running")
            try await Self.nextRun(db, after: 2.5)
            let run = try #require(try await Self.runs(db, kind: "scan").first)
            #expect(run.status == "abandoned" && run.finished)
            #expect(run.processed == 2, "the two conversations it committed before it was killed")
        }
    }

    @Test func aSIGTERMedAssistPassClosesItsRun() async throws {
        try await TestDatabase.with { db in
            try await Self.demoNow(db)
            let server = try FakeOpenAIServer { _ in .delay(60, then: .error(status: 500, message: "too late")) }
            defer { server.stop() }
            let child = try Self.child(["assist", "--changed", "--provider", "openai", "--prompts", WorkerHarness.promptsPath], db, server)
            _ = await server.waitForRequests(count: 1, timeout: .seconds(60))
            child.kill(SIGTERM)
            #expect(try await child.waitForExit(timeout: 30) == .exit(143))
            let run = try #require(try await Self.runs(db, kind: "assist").first)
            #expect(run.status == "failed" && run.finished, "\(run)")
            #expect(run.error?.contains("SIGTERM") == true)
            #expect(try await Self.spent(db, run.id).requests >= 1, "the request in flight is counted")
        }
    }

    /// A request counts when it is sent: a run stopped while it waits for the answer records it, and says its
    /// tokens are unknown.
    @Test func aSIGTERMedAssistRunRecordsTheRequestInFlight() async throws {
        try await TestDatabase.with { db in
            try await Self.demoNow(db)
            let server = try FakeOpenAIServer { _ in .delay(60, then: .error(status: 500, message: "too late")) }
            defer { server.stop() }
            let child = try Self.child(["assist", "--user", "demo", "--provider", "openai", "--prompts", WorkerHarness.promptsPath], db, server)
            _ = await server.waitForRequests(count: 1, timeout: .seconds(60))
            child.kill(SIGTERM)
            #expect(try await child.waitForExit(timeout: 30) == .exit(143), "\(child.stderr)")
            let run = try #require(try await Self.runs(db, kind: "assist").first)
            #expect(run.status == "failed" && run.finished, "\(run)")
            #expect(run.error?.contains("1 model request was in flight (tokens unknown)") == true, "\(run.error ?? "nil")")
            let spent = try await Self.spent(db, run.id)
            #expect(spent.requests == 1 && spent.inFlight == 1 && spent.promptTokens == 0)
        }
    }

    static func spent(_ db: TestDatabase, _ id: UUID) async throws -> (requests: Int, inFlight: Int?, promptTokens: Int) {
        let row = try await db.pool.query(
            "SELECT requests, (details->>'requests_in_flight')::int AS in_flight, prompt_tokens FROM job_runs WHERE id = $1", [id])[0]
        return (try row.decode("requests"), try row.decode("in_flight"), try row.decode("prompt_tokens"))
    }
}
