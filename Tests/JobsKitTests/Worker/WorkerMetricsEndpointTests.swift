import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JobsKit
import Logging
import TestSupport
import Testing

/// `messageai-jobs worker --metrics-port` as a child process against the test database: the endpoint a Kubernetes
/// probe and a Prometheus scrape would reach.
@Suite("Worker metrics endpoint")
struct WorkerMetricsEndpointTests {
    @Test("/metrics counters move while the worker serves; /healthz turns 503 when the LISTEN connection dies and 200 after it reconnects")
    func countersAndHealth() async throws {
        try await WorkerHarness.withDemo { db in
            let port = try FreePort.find()
            // A name of its own, so the test finds this worker's LISTEN backend among other tests' workers.
            let application = "metrics-test-\(UUID().uuidString.prefix(8).lowercased())"
            let child = try JobsBinary.child(
                ["worker", "--provider", "rules", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "1",
                 "--metrics-port", "\(port)"],
                environment: ["DATABASE_URL": db.connectionURL + "&application_name=\(application)"])
            defer { child.kill() }
            try await child.waitForStderr(containing: "serving /healthz, /readyz and /metrics on http://127.0.0.1:\(port)", timeout: 60)
            let endpoint = LoopbackEndpoint(port: port)
            try await waitUntil(30, "/healthz answers 200") { try await endpoint.get("/healthz").status == 200 }
            try await waitUntil(30, "/readyz answers 200") { try await endpoint.get("/readyz").status == 200 }

            let before = try await endpoint.get("/metrics")
            #expect(before.status == 200)
            #expect(before.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(PrometheusText.value(before.text, #"messageai_worker_requests_total{kind="extract",result="done"}"#) ?? 0 == 0)

            let queue = JobRequestQueue(pool: db.pool)
            let served = [try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday),
                          try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)]
            // The worker has no LLM (--provider rules): an assist request fails for good at once.
            let refused = try await queue.enqueue(.assist, id: WorkerHarness.users.maria)
            try await WorkerHarness.waitUntilFinished(served + [refused], db.pool, timeout: 60)

            var after = before
            try await waitUntil(10, "the counters reach the finished requests") {
                after = try await endpoint.get("/metrics")
                return PrometheusText.value(after.text, #"messageai_worker_requests_total{kind="extract",result="done"}"#) == 2
                    && PrometheusText.value(after.text, #"messageai_worker_requests_total{kind="assist",result="failed"}"#) == 1
            }
            #expect(PrometheusText.value(after.text, #"messageai_worker_request_duration_seconds_count{kind="extract"}"#) == 2)
            #expect(PrometheusText.value(after.text, #"messageai_worker_request_duration_seconds_bucket{kind="extract",le="+Inf"}"#) == 2)
            #expect(PrometheusText.value(after.text, #"messageai_worker_queue_depth{state="running"}"#) == 0)
            #expect(PrometheusText.value(after.text, #"messageai_worker_queue_depth{state="ready"}"#) == 0)
            // Each enqueue's NOTIFY woke the worker.
            #expect((PrometheusText.value(after.text, "messageai_worker_notifications_total") ?? 0) >= 1)
            // The rule-based provider asks no model: its tokens are counted, as zero.
            #expect(PrometheusText.value(after.text, #"messageai_worker_model_tokens_total{kind="extract",type="prompt"}"#) == 0)

            // A request that is not due yet is queue depth, not work.
            try await db.pool.query(
                "INSERT INTO job_requests (kind, conversation_id, not_before) VALUES ('extract', $1, now() + interval '1 hour')",
                [WorkerHarness.conversations.birthday])
            try await waitUntil(10, "the waiting request shows in the queue depth") {
                PrometheusText.value(try await endpoint.get("/metrics").text, #"messageai_worker_queue_depth{state="waiting"}"#) == 1
            }

            // Kill the LISTEN backend, and every reconnect for three seconds: /healthz says so.
            var unhealthy: EndpointReply?
            var unready = false
            let killing = Date().addingTimeInterval(3)
            var killed = 0
            while Date() < killing {
                killed += try await db.pool.query(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE application_name = $1 AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()
                    """, [application]).count
                let health = try await endpoint.get("/healthz")
                if health.status != 200 { unhealthy = health }
                if try await endpoint.get("/readyz").status != 200 { unready = true }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(killed >= 1)
            let down = try #require(unhealthy, "/healthz stayed 200 while the LISTEN connection was being killed")
            #expect(down.status == 503)
            #expect(down.text.contains("LISTEN connection down"), "body: \(down.text)")
            // One reason, on one line, though libpq's message spans several.
            #expect(down.text.split(separator: "\n").count == 1, "body: \(down.text)")
            #expect(unready, "/readyz stayed 200 while the LISTEN connection was being killed")

            // Left alone, the worker reconnects and is healthy again.
            try await waitUntil(60, "/healthz is 200 again after the reconnect") { try await endpoint.get("/healthz").status == 200 }
            #expect(child.stderr.contains("listening on 'job_requests' again"))

            child.kill(SIGTERM)
            #expect(try await child.waitForExit(timeout: 30) == .exit(0), "stderr: \(child.stderr)")
            await #expect(throws: (any Error).self) { try await endpoint.get("/healthz") }
        }
    }

    @Test("a taken --metrics-port fails the worker at start: exit 1, saying the port is in use")
    func takenPort() async throws {
        try await WorkerHarness.withDemo { db in
            let taken = try await MetricsServer.bind(host: "127.0.0.1", port: 0, routes: MetricsServerTests.routes,
                                                     logger: Logger(label: "test"))
            let child = try JobsBinary.child(
                ["worker", "--provider", "rules", "--prompts", WorkerHarness.promptsPath, "--metrics-port", "\(taken.port)"],
                environment: ["DATABASE_URL": db.connectionURL])
            defer { child.kill() }
            #expect(try await child.waitForExit(timeout: 60) == .exit(1), "stderr: \(child.stderr)")
            #expect(child.stderr.contains("the metrics endpoint cannot listen on 127.0.0.1:\(taken.port) (the port is in use)"),
                    "stderr: \(child.stderr)")
            #expect(taken.openConnections == 0)
        }
    }
}
