import Foundation
import JobsKit
import TestSupport
import Testing

/// The worker's swift-metrics records, read back from a Prometheus registry of the test's own (no global bootstrap,
/// so tests stay independent).
@Suite("Worker metrics")
struct WorkerMetricsTests {
    @Test("a served request's model tokens and cost, its latency and its lease renewals reach the registry")
    func tokensCostLatencyRenewals() async throws {
        try await WorkerHarness.withDemo { db in
            // The events answer waits until the test lets it go, so the lease heartbeat gets to run.
            let gate = ReplyGate()
            let server = try FakeOpenAIServer { request in
                let answer = ScriptedReply.chat(content: FakeAnswers.answer(for: request).serialized(),
                                                usage: FakeUsage(prompt: 1000, completion: 100))
                let isEvents = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue == "calendar_events"
                return isEvents ? .held(gate, then: answer) : answer
            }
            defer {
                gate.open()
                server.stop()
            }
            let factory = PrometheusBootstrap.factory()
            let exposition = PrometheusExposition(registry: factory.registry)
            let id = try await JobRequestQueue(pool: db.pool).enqueue(.extract, id: WorkerHarness.conversations.birthday)
            var options = WorkerHarness.options(pollSeconds: 30)
            options.lease = .seconds(60)
            let clock = TestClock()
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server), options: options,
                                       clock: clock, metrics: WorkerMetrics(factory: factory))
            let running = try await WorkerHarness.start(worker)
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(20))
            try await waitUntil(10, "the heartbeat renews the lease") {
                PrometheusText.value(text(exposition), #"messageai_worker_lease_renewals_total{result="renewed"}"#) == 1
            }
            try await worker.metrics.sampleQueueDepth(pool: db.pool)
            #expect(PrometheusText.value(text(exposition), #"messageai_worker_queue_depth{state="running"}"#) == 1)
            #expect(PrometheusText.value(text(exposition), #"messageai_worker_requests_in_flight"#) == 1)
            gate.open()
            try await WorkerHarness.waitUntilFinished([id], db.pool, timeout: 30)
            await worker.stop()
            _ = try await running.value

            let metrics = text(exposition)
            let run = try await db.pool.query(
                "SELECT prompt_tokens, completion_tokens, estimated_cost_usd::float8 AS cost FROM job_runs WHERE id = $1",
                [try #require(try await WorkerHarness.row(id, db.pool).runID)])[0]
            let prompt: Int64 = try run.decode("prompt_tokens")
            let completion: Int64 = try run.decode("completion_tokens")
            let cost: Double? = try run.decode("cost")
            #expect(prompt >= 1000)
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_tokens_total{kind="extract",type="prompt"}"#)
                    == Double(prompt))
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_tokens_total{kind="extract",type="completion"}"#)
                    == Double(completion))
            let recordedCost = try #require(cost, "the run has no cost estimate")
            #expect(recordedCost > 0)
            let exported = try #require(PrometheusText.value(metrics, #"messageai_worker_model_cost_usd_total{kind="extract"}"#))
            #expect(abs(exported - recordedCost) < 1e-9)
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_cost_unknown_runs_total{kind="extract"}"#) == nil)
            #expect(PrometheusText.value(metrics, #"messageai_worker_requests_total{kind="extract",result="done"}"#) == 1)
            #expect(PrometheusText.value(metrics, #"messageai_worker_request_duration_seconds_count{kind="extract"}"#) == 1)
            #expect(PrometheusText.value(metrics, #"messageai_worker_requests_in_flight"#) == 0)
        }
    }

    @Test("a run whose model has no price adds nothing to the cost and is counted as unknown")
    func unknownCostIsCountedNotSummed() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { .chat(content: FakeAnswers.answer(for: $0).serialized(), usage: FakeUsage(prompt: 1000, completion: 100)) }
            defer { server.stop() }
            let factory = PrometheusBootstrap.factory()
            let exposition = PrometheusExposition(registry: factory.registry)
            let id = try await JobRequestQueue(pool: db.pool).enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server, model: "unpriced-model"),
                                       options: WorkerHarness.options(once: true), metrics: WorkerMetrics(factory: factory))
            _ = try await worker.run()
            #expect(try await WorkerHarness.row(id, db.pool).runID != nil)
            let metrics = text(exposition)
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_cost_unknown_runs_total{kind="extract"}"#) == 1)
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_cost_usd_total{kind="extract"}"#) == nil)
            #expect(PrometheusText.value(metrics, #"messageai_worker_model_tokens_total{kind="extract",type="prompt"}"#) ?? 0 >= 1000)
        }
    }

    @Test("without a metrics backend nothing is recorded or queried")
    func disabledByDefault() {
        #expect(WorkerMetrics().enabled == false)
        #expect(WorkerMetrics(factory: PrometheusBootstrap.factory()).enabled)
    }

    private func text(_ exposition: PrometheusExposition) -> String { String(decoding: exposition.render(), as: UTF8.self) }
}
