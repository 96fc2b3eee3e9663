import AgentRuntime
import Foundation
import Core
@testable import JobsKit
import Postgres
import TestSupport
import Synchronization
import Testing

@Suite("Scan: throttling, failures and crashes")
struct ScanFailureTests {
    @Test func a429StormSlowsTheScanWithoutFailingIt() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 6, active: 6, newMessages: 4)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let storm = 6
            server.enqueue(Array(repeating: ScriptedReply.error(status: 429, message: "Rate limit reached", type: "requests",
                                                                 headers: ["retry-after": "1"]), count: storm))
            // The default retry policy (4 attempts, server hints honoured), behind the shared limiter as in production.
            let engine = try ScanHarness.engine(server, retry: RetryPolicy.modelCalls(), limiter: RateLimiter(limits: RateLimits()))
            let clock = ContinuousClock()
            let started = clock.now
            let summary = try await ScanHarness.scan(db, engine, ScanHarness.options(concurrency: 3))
            let elapsed = clock.now - started

            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.conversations == 6)
            #expect(server.pendingReplies == 0)
            #expect(server.requests.count == 6 * 5 + storm)
            #expect(try await ScanHarness.scannedConversations(db) == Set(workload.conversations.map(\.id)))
            // Correctness, not speed: the retries waited the second the server asked for.
            #expect(elapsed >= .seconds(1))
        }
    }

    /// A worker whose claim query was in flight while another worker's conversation failed (and released its lease)
    /// must not take that conversation again. The claim hook makes that interleaving certain: the k-th claim's query
    /// is sent only once the k - 1 conversations claimed before it have failed and been released, while the other
    /// workers' claims started before those failures (their search's start fixed then) wait at the hook.
    @Test func aScanTriesEachFailingConversationOnce() async throws {
        try await TestDatabase.with(maxConnections: 4) { db in
            let conversations = 16
            let workload = try ScanHarness.workload(conversations: conversations, active: conversations, newMessages: 2)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { _ in .error(status: 400, message: "refused by the test") }
            defer { server.stop() }
            let gate = FailureGate(conversations: conversations)
            var scan = ScanService(pool: db.pool, engine: try ScanHarness.engine(server), options: ScanHarness.options(concurrency: 6))
            scan.beforeClaim = { await gate.claim() }
            let summary = try await scan.run(now: ScanHarness.now) { _, failed, _ in gate.failed(failed) }
            #expect(summary.conversations == 0)
            #expect(summary.failed == 16)
            let failures: [Int] = try await db.pool.query("SELECT failures FROM scan_watermarks").map { try $0.decode("failures") }
            #expect(failures == Array(repeating: 1, count: 16))
            // Every conversation's claim and at least one search that found the queue empty went through the hook.
            #expect(gate.claims > conversations)
        }
    }

    @Test func theCLIExitsNonZeroWhenAConversationFailedAfterFinishingTheOthers() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 5, active: 5, newMessages: 4)
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[2]
            let server = try FakeOpenAIServer { request in
                ScanRequests.conversation(request) == victim.name
                    ? .error(status: 400, message: "this conversation is refused by the test")
                    : ScanRequests.answer(request)
            }
            defer { server.stop() }
            let child = try ScanChild.scan([], databaseURL: db.connectionURL, baseURL: server.baseURL)
            let status = try await child.waitForExit(timeout: 120)

            #expect(status == .exit(2), "stderr: \(child.stderr)")
            let summary = try JSONValue.parse(Data(child.stdout.utf8))
            #expect(summary["conversations"]?.integerValue == 4)
            #expect(summary["failed"]?.integerValue == 1)
            let others = Set(workload.conversations.map(\.id)).subtracting([victim.id])
            #expect(try await ScanHarness.scannedConversations(db) == others)
            let row = try #require(try await db.pool.query(
                "SELECT failures, last_error, lease_owner FROM scan_watermarks WHERE conversation_id = $1", [victim.id]).first)
            #expect(try row.decode("failures", as: Int.self) == 1)
            #expect(try row.decode("last_error", as: String?.self)?.contains("HTTP 400") == true)
            #expect(try row.decode("lease_owner", as: String?.self) == nil)
        }
    }

    /// A scan killed with SIGKILL part-way, then run again, ends with exactly the rows of a scan that was never
    /// interrupted, on an identical copy of the data.
    @Test func aScanKilledMidRunAndRunAgainEndsWithTheRowsOfAnUninterruptedRun() async throws {
        let workload = try ScanHarness.workload(conversations: 8, active: 8, newMessages: 4)
        let server = try FakeOpenAIServer { .delay(0.25, then: ScanRequests.answer($0)) }
        defer { server.stop() }
        let reference = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let child = try ScanChild.scan(["--concurrency", "2"], databaseURL: db.connectionURL, baseURL: server.baseURL)
            #expect(try await child.waitForExit(timeout: 120).code == 0, "stderr: \(child.stderr)")
            return try await ScanHarness.rowSet(db)
        }
        #expect(reference.contains { $0.hasPrefix("event ") })
        #expect(reference.contains { $0.hasPrefix("priority ") })

        let recovered = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let child = try ScanChild.scan(["--concurrency", "2"], databaseURL: db.connectionURL, baseURL: server.baseURL)
            // Kill it as soon as something is committed, while conversations are still claimed and in flight.
            let deadline = Date().addingTimeInterval(60)
            while try await ScanHarness.scannedConversations(db).isEmpty {
                guard child.isRunning, Date() < deadline else { throw ScanTestError("the scan never committed; stderr: \(child.stderr)") }
                try await Task.sleep(for: .milliseconds(10))
            }
            child.kill()
            let killed = try await child.waitForExit(timeout: 10)
            #expect(killed == .signal(SIGKILL))
            let committed = try await ScanHarness.scannedConversations(db).count
            try #require(committed < 8, "the kill landed after the scan had finished")

            // The dead scanner's leases would block its conversations for --lease-seconds (at least 30 s, the
            // production safeguard). The test expires them instead of waiting, as time passing would.
            try await db.pool.query("UPDATE scan_watermarks SET lease_expires_at = now() - interval '1 second' WHERE lease_owner IS NOT NULL")
            let again = try ScanChild.scan(["--concurrency", "2"], databaseURL: db.connectionURL, baseURL: server.baseURL)
            #expect(try await again.waitForExit(timeout: 120).code == 0, "stderr: \(again.stderr)")
            let summary = try JSONValue.parse(Data(again.stdout.utf8))
            #expect(summary["conversations"]?.integerValue == Int64(8 - committed))
            return try await ScanHarness.rowSet(db)
        }
        #expect(recovered == reference)
    }
}

/// Holds the k-th claim (in the order claims reach the hook) until k - 1 conversations have failed, capped at the
/// number of conversations (the searches that find the queue empty wait for them all).
final class FailureGate: Sendable {
    private struct State {
        var claims = 0
        var failed = 0
        var waiting: [(needed: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let conversations: Int
    private let state = Mutex(State())

    init(conversations: Int) { self.conversations = conversations }

    var claims: Int { state.withLock { $0.claims } }

    func claim() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                state.claims += 1
                let needed = min(state.claims - 1, conversations)
                guard state.failed < needed else { return true }
                state.waiting.append((needed, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The scan's progress callback: `failed` failures are recorded (and their leases released).
    func failed(_ failed: Int) {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.failed = max(state.failed, failed)
            let (ready, still) = (state.waiting.filter { $0.needed <= state.failed }, state.waiting.filter { $0.needed > state.failed })
            state.waiting = still
            return ready.map(\.continuation)
        }
        for continuation in released { continuation.resume() }
    }
}
