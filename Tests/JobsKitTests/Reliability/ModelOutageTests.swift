import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// Counts the attempts that reach the network, for a server that cannot count them itself (a closed port).
private final class CountingTransport: HTTPTransport {
    private let count = NIOLockedValueBox(0)
    var sent: Int { count.withLockedValue { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        count.withLockedValue { $0 += 1 }
        return try await AsyncHTTPClientTransport.shared.send(request)
    }
}

/// A model outage during the nightly scan (issue 38): a few probes, an early end with the outage named, and no
/// conversation blamed. The client, retries and breaker are the production defaults (4 attempts, 0.5 s backoff, one
/// request at a time to a local server); only the breaker is the test's own.
@Suite("Reliability: a model server outage costs a few requests and blames no conversation", .serialized)
struct ModelOutageTests {
    static let conversations = 1_000

    static func engine(baseURL: URL, transport: any HTTPTransport, timeout: Duration? = nil) throws -> ExtractionEngine {
        let client = OpenAIClient(configuration: LLMConfiguration(apiKey: FakeOpenAIServer.testAPIKey, baseURL: baseURL, requestTimeout: timeout),
                                  transport: transport, breaker: CircuitBreaker(server: baseURL.absoluteString))
        return try ExtractionEngine(prompts: try Reliability.prompts(), provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
    }

    /// The scan command's defaults (4 conversations at a time, every feature), every new message sent to the model.
    static func options(features: [ExtractionFeature] = ExtractionFeature.allCases) -> ScanOptions {
        var options = ScanHarness.options(concurrency: 4)
        options.features = features
        return options
    }

    /// Failure counts, quarantine streaks and watermark positions of every conversation.
    static func blame(_ db: TestDatabase) async throws -> (failures: Int, streaks: Int, quarantined: Int, moved: Int) {
        let row = try await db.pool.query("""
            SELECT coalesce(sum(failures), 0)::int AS f, count(*) FILTER (WHERE same_failures > 0)::int AS s,
                   count(*) FILTER (WHERE quarantined_at IS NOT NULL)::int AS q,
                   count(*) FILTER (WHERE run_id IS NOT NULL)::int AS m,
                   count(*) FILTER (WHERE lease_owner IS NOT NULL)::int AS l
            FROM scan_watermarks
            """)[0]
        #expect(try row.decode("l", as: Int.self) == 0, "every claim was given back")
        return (try row.decode("f"), try row.decode("s"), try row.decode("q"), try row.decode("m"))
    }

    /// `maxRequests`: 20 for a closed port (5 refused attempts in a row open the breaker); 100 for 503s, which a server
    /// that is up can give some requests, so the breaker waits for 20 calls in a row (4 attempts each) to fail.
    static func checkOutage(_ summary: ScanService.Summary, requests: Int, maxRequests: Int, elapsed: Duration, db: TestDatabase) async throws {
        #expect(requests <= maxRequests, "an outage cost \(requests) requests")
        #expect(elapsed < .seconds(60), "the outage scan took \(elapsed)")
        #expect(summary.conversations == 0)
        #expect(summary.failed == 0, "\(summary.failures.prefix(3))")
        #expect(summary.deferred >= 1)
        let outage = try #require(summary.outage)
        #expect(outage.contains("unavailable") && outage.contains("circuit breaker"), "\(outage)")
        let blame = try await blame(db)
        #expect(blame.failures == 0 && blame.streaks == 0 && blame.quarantined == 0, "\(blame)")
        #expect(blame.moved == 0)
        let run = try await db.pool.query("SELECT status, error, details->>'outage' AS outage FROM job_runs WHERE id = $1", [summary.runID])[0]
        #expect(try run.decode("status", as: String.self) == "failed")
        #expect(try run.decode("error", as: String?.self)?.contains("unavailable") == true)
        #expect(try run.decode("outage", as: String?.self) == outage)
        #expect(ScanReport.text(summary).contains("OUTAGE: "))
        #expect(ScanReport.text(summary).hasPrefix("FAILED: \(outage)\n"), "the summary's first line names the outage")
    }

    /// The second night: the server answers, and every conversation is scanned (one feature, to keep the test short).
    static func checkRecovery(_ db: TestDatabase, server: FakeOpenAIServer) async throws {
        server.setFallback { ScanRequests.answer($0) }
        let engine = try Self.engine(baseURL: server.baseURL, transport: AsyncHTTPClientTransport.shared)
        let next = try await ScanService(pool: db.pool, engine: engine, options: options(features: [.deadlines])).run(now: Reliability.now)
        #expect(next.outage == nil)
        #expect(next.failed == 0, "\(next.failures.prefix(3))")
        #expect(next.conversations == conversations)
        let blame = try await blame(db)
        #expect(blame.moved == conversations && blame.failures == 0)
    }

    static func load(_ db: TestDatabase) async throws {
        try await ScanHarness.load(try ScanHarness.workload(conversations: conversations, active: conversations, newMessages: 2, seed: 38), into: db)
    }

    @Test("a closed port: at most 20 connection attempts, the run ends failed within 60 s, no failure counted; the next scan takes everything")
    func deadServer() async throws {
        try await TestDatabase.with { db in
            try await Self.load(db)
            let port = try FreePort.find()
            let baseURL = URL(string: "http://127.0.0.1:\(port)/v1")!
            let transport = CountingTransport()
            let started = ContinuousClock.now

            let summary = try await ScanService(pool: db.pool, engine: try Self.engine(baseURL: baseURL, transport: transport),
                                                options: Self.options()).run(now: Reliability.now)

            try await Self.checkOutage(summary, requests: transport.sent, maxRequests: 20, elapsed: .now - started, db: db)
            #expect(summary.outage?.contains("127.0.0.1:\(port)") == true)
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            try await Self.checkRecovery(db, server: server)
        }
    }

    @Test("a server answering 503 to everything: at most 100 requests, the run ends failed within 60 s, no failure counted; the next scan takes everything")
    func unavailableServer() async throws {
        try await TestDatabase.with { db in
            try await Self.load(db)
            let server = try FakeOpenAIServer { _ in .status(503, body: "upstream connect error", headers: ["Content-Type": "text/plain"]) }
            defer { server.stop() }
            let started = ContinuousClock.now

            let summary = try await ScanService(pool: db.pool, engine: try Self.engine(baseURL: server.baseURL, transport: AsyncHTTPClientTransport.shared),
                                                options: Self.options()).run(now: Reliability.now)

            try await Self.checkOutage(summary, requests: server.requests.count, maxRequests: 100, elapsed: .now - started, db: db)
            #expect(summary.outage?.contains("HTTP 503") == true, "\(summary.outage ?? "nil")")
            try await Self.checkRecovery(db, server: server)
        }
    }
}
