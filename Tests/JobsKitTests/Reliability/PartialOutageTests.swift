import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// A partial outage costs only the failing conversations (issue 47): a server that answers 503 (with the key in its
/// body) to half the conversations and answers the others. Every night each conversation gets a new message; the
/// healthy ones are all scanned every night, the failing ones fail every night with their own cause and are
/// quarantined after `--quarantine-after` (3) nights, then passed over; the same server failing everything is still
/// stopped by the breaker. The client, retries and breaker are the production defaults (4 attempts, 0.5 s backoff, one
/// request on the wire at a time), with a 3 s request timeout so the conversations that time out on the second night
/// do so quickly. `PARTIAL_OUTAGE_CONVERSATIONS` and `PARTIAL_OUTAGE_CONCURRENCY` scale it up:
/// `benchmarks/partial-outage.sh` runs 1,000 conversations.
@Suite("Reliability: a partial model outage costs only the failing conversations", .serialized)
struct PartialOutageTests {
    static let environment = ProcessInfo.processInfo.environment
    static let conversations = environment["PARTIAL_OUTAGE_CONVERSATIONS"].flatMap(Int.init) ?? 40
    static let concurrency = environment["PARTIAL_OUTAGE_CONCURRENCY"].flatMap(Int.init) ?? 4
    static let nights = 3
    static let timeout: Duration = .seconds(3)

    /// The answer of the night to one request: 503 for failing conversations (a timeout on the second night for the
    /// `timingOut` ones), a schema-valid answer for the others.
    static func reply(_ request: RecordedRequest, failing: Set<String>, timingOut: Set<String>, night: Int) -> ScriptedReply {
        let name = ScanRequests.conversation(request) ?? ""
        guard failing.contains(name) else { return ScanRequests.answer(request) }
        if night == 2, timingOut.contains(name) { return .delay(10, then: .status(503)) }
        return .status(503, body: "upstream overloaded for \(name); echo \(FakeOpenAIServer.testAPIKey)", headers: ["Content-Type": "text/plain"])
    }

    /// Adds one message to every conversation, an hour before `now`.
    static func newMessages(_ db: TestDatabase, now: Date) async throws {
        try await db.pool.query(
            """
            INSERT INTO messages (conversation_id, sender_id, content, created_at)
            SELECT DISTINCT ON (conversation_id) conversation_id, sender_id, 'Practice moved to Thursday at 5pm', $1
            FROM messages ORDER BY conversation_id, created_at DESC
            """, [now.addingTimeInterval(-3600)])
    }

    static func lastErrors(_ db: TestDatabase) async throws -> [UUID: (error: String?, quarantined: Bool)] {
        var result: [UUID: (error: String?, quarantined: Bool)] = [:]
        for row in try await db.pool.query("SELECT conversation_id, last_error, quarantined_at IS NOT NULL AS q FROM scan_watermarks") {
            result[try row.decode("conversation_id")] = (try row.decode("last_error"), try row.decode("q"))
        }
        return result
    }

    @Test("503s for half the conversations: every healthy one is scanned each night, the failing ones are quarantined after 3 nights with their own causes; a full outage is still stopped")
    func halfTheConversationsFail() async throws {
        try await TestDatabase.with(maxConnections: Self.concurrency + 4) { db in
            let workload = try ScanHarness.workload(conversations: Self.conversations, active: Self.conversations, newMessages: 2, seed: 47)
            try await ScanHarness.load(workload, into: db)
            let all = workload.conversations
            let failing = Set(all.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.name))
            let timingOut = Set(all.filter { failing.contains($0.name) }.prefix(2).map(\.name))
            let failingIDs = Set(all.filter { failing.contains($0.name) }.map(\.id))
            let night = NIOLockedValueBox(1)
            let server = try FakeOpenAIServer { request in
                Self.reply(request, failing: failing, timingOut: timingOut, night: night.withLockedValue { $0 })
            }
            defer { server.stop() }
            let engine = try ModelOutageTests.engine(baseURL: server.baseURL, transport: AsyncHTTPClientTransport.shared, timeout: Self.timeout)
            var options = ScanHarness.options(concurrency: Self.concurrency)
            options.features = [.deadlines]
            let healthy = all.count - failingIDs.count

            for n in 1...Self.nights + 1 {
                night.withLockedValue { $0 = n }
                let now = ScanHarness.now.addingTimeInterval(Double(n) * 86_400)
                try await Self.newMessages(db, now: now)
                let asked = server.requests.count
                let started = ContinuousClock.now
                let summary = try await ScanService(pool: db.pool, engine: engine, options: options).run(now: now)
                let elapsed = ContinuousClock.now - started
                print("partial outage, night \(n): \(all.count) conversations, \(summary.conversations) scanned, \(summary.failed) failed, "
                      + "\(summary.quarantined.count) quarantined, \(server.requests.count - asked) requests, \(elapsed)")
                #expect(summary.outage == nil, "night \(n): \(summary.outage ?? "")")
                #expect(summary.deferred == 0, "night \(n)")
                #expect(summary.conversations == healthy, "night \(n): every healthy conversation is scanned")
                let errors = try await Self.lastErrors(db)
                if n <= Self.nights {
                    #expect(summary.failed == failingIDs.count, "night \(n): \(summary.failures.prefix(3))")
                    for id in failingIDs {
                        let error = errors[id]?.error ?? ""
                        #expect(!error.contains(FakeOpenAIServer.testAPIKey), "the 5xx body is redacted")
                        if n == 2, let name = all.first(where: { $0.id == id })?.name, timingOut.contains(name) {
                            #expect(error.contains("timed out") && !error.contains("503"), "night 2, \(name): its own cause: \(error)")
                        } else {
                            #expect(error.contains("HTTP 503") && error.contains("upstream overloaded") && error.contains("[redacted]"),
                                    "night \(n): its own cause with the body: \(error)")
                        }
                    }
                    let quarantined = Set(errors.filter { $0.value.quarantined }.map(\.key))
                    #expect(quarantined == (n == Self.nights ? failingIDs : []), "night \(n): \(quarantined.count) quarantined")
                } else {
                    #expect(summary.failed == 0, "the quarantined conversations are passed over")
                    let names = Set(server.requests[asked...].compactMap(ScanRequests.conversation))
                    #expect(names.isDisjoint(with: failing), "no request for a quarantined conversation")
                }
            }

            // The same server failing every request: the breaker stops the scan, blaming no conversation.
            server.setFallback { _ in .status(503, body: "down", headers: ["Content-Type": "text/plain"]) }
            let now = ScanHarness.now.addingTimeInterval(Double(Self.nights + 2) * 86_400)
            try await Self.newMessages(db, now: now)
            let asked = server.requests.count
            let started = ContinuousClock.now
            let down = try await ScanService(pool: db.pool, engine: try ModelOutageTests.engine(
                baseURL: server.baseURL, transport: AsyncHTTPClientTransport.shared), options: options).run(now: now)
            let elapsed = ContinuousClock.now - started
            print("full outage: stopped after \(elapsed), \(server.requests.count - asked) requests, \(down.deferred) deferred")
            #expect(down.outage?.contains("is unavailable") == true, "\(down.outage ?? "nil")")
            #expect(down.failed == 0 && down.conversations == 0, "\(down.failures.prefix(3))")
            #expect(elapsed < .seconds(60), "a bound for a hang, not a timing assertion")
        }
    }
}
