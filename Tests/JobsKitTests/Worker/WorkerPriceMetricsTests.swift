import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// Prices for any server, through the worker (issue 48 item 3): with `MESSAGEAI_PRICE_*` set, the money the worker's
/// `/metrics` adds up for a local server is the runs' tokens at that price, the figure `job_runs` and `runs` show;
/// without a price it adds nothing and counts the runs as unknown.
@Suite("worker metrics price a local server", .serialized)
struct WorkerPriceMetricsTests {
    /// Serves two extract requests with `prices` and returns the worker's cost and unknown-run counters and the runs.
    static func serve(_ prices: [String: String], _ db: TestDatabase) async throws -> (cost: Double?, unknown: Double?, runs: [String]) {
        let server = try ServerPriceTests.server()
        defer { server.stop() }
        let port = try FreePort.find()
        let child = try JobsBinary.child(
            ["worker", "--provider", "openai", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "1", "--metrics-port", "\(port)"],
            environment: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                          "OPENAI_API_KEY": "sk-test-worker-price"].merging(prices) { $1 })
        defer { child.kill() }
        try await child.waitForStderr(containing: "serving /healthz, /readyz and /metrics on http://127.0.0.1:\(port)", timeout: 60)

        let queue = JobRequestQueue(pool: db.pool)
        let ids = [try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday),
                   try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)]
        try await WorkerHarness.waitUntilFinished(ids, db.pool, timeout: 120)
        let runs = try await db.pool.query(
            "SELECT run_id::text AS run FROM job_requests WHERE id = ANY($1::bigint[]) AND status = 'done'", [ids]
        ).map { try $0.decode("run", as: String.self) }

        let endpoint = LoopbackEndpoint(port: port)
        var text = ""
        try await waitUntil(20, "the worker's counters reach both finished requests") {
            text = try await endpoint.get("/metrics").text
            return PrometheusText.value(text, #"messageai_worker_requests_total{kind="extract",result="done"}"#) == 2
        }
        child.kill(SIGTERM)
        _ = try await child.waitForExit(timeout: 30)
        return (PrometheusText.value(text, #"messageai_worker_model_cost_usd_total{kind="extract"}"#),
                PrometheusText.value(text, #"messageai_worker_model_cost_unknown_runs_total{kind="extract"}"#), runs)
    }

    @Test("a set price gives the worker's /metrics the runs' own money figure; unpriced, the runs are unknown")
    func samePriceThroughTheWorker() async throws {
        try await WorkerHarness.withDemo { db in
            let priced = try await Self.serve(ServerPriceTests.prices, db)
            #expect(priced.runs.count == 2, "both requests served by a run: \(priced.runs)")
            var expected = 0.0
            for run in priced.runs {
                let figure = try await ServerPriceTests.expected(db, run: run)
                #expect(figure.usd > 0, "the scripted server reports tokens")
                #expect(abs((figure.recorded ?? -1) - figure.usd) < 1e-6, "job_runs records the tokens at the set price")
                expected += figure.usd
            }
            let cost = try #require(priced.cost, "the cost counter is served")
            #expect(abs(cost - expected) < 1e-6, "/metrics \(cost) vs the runs' \(expected)")
            #expect((priced.unknown ?? 0) == 0)

            let runsView = try await JobsBinary.json([RunHistory.Run].self, ["runs", "--kind", "extract"], db)
            let shown = runsView.filter { priced.runs.contains($0.id.postgresValue) }.compactMap(\.costUSD).reduce(0, +)
            #expect(abs(shown - cost) < 1e-6, "`runs` shows the same money: \(shown) vs \(cost)")

            let unpriced = try await Self.serve([:], db)
            #expect((unpriced.cost ?? 0) == 0, "an unpriced local server adds no money: \(String(describing: unpriced.cost))")
            #expect(unpriced.unknown == 2, "and says its runs' cost is unknown")
        }
    }
}
