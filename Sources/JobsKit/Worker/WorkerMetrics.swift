import AgentRuntime
package import CoreMetrics
import Foundation
package import Postgres

/// The worker's metrics, recorded through swift-metrics. With the default (un-bootstrapped) factory every record is
/// a no-op and the queries that feed tokens, cost and queue depth are skipped, so a worker without `--metrics-port`
/// pays nothing; `worker --metrics-port` bootstraps a Prometheus registry (MetricsEndpoint).
package struct WorkerMetrics: Sendable {
    package static let requests = "messageai_worker_requests_total"
    package static let requestDuration = "messageai_worker_request_duration_seconds"
    package static let modelTokens = "messageai_worker_model_tokens_total"
    package static let modelCost = "messageai_worker_model_cost_usd_total"
    /// Runs whose cost is unknown (the model has no price): they add nothing to `modelCost`, so this says the sum is short.
    package static let modelCostUnknown = "messageai_worker_model_cost_unknown_runs_total"
    package static let leaseRenewals = "messageai_worker_lease_renewals_total"
    package static let queueDepth = "messageai_worker_queue_depth"
    package static let inFlight = "messageai_worker_requests_in_flight"
    package static let notifications = "messageai_worker_notifications_total"
    /// Conversations the scan passes over (`messageai-jobs quarantine list`), sampled at scrape time.
    package static let quarantined = "messageai_quarantined_conversations"

    private let factory: any MetricsFactory
    /// False with the no-op factory: nothing is recorded, nothing is queried for it.
    package let enabled: Bool

    package init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        enabled = !(factory is NOOPMetricsHandler)
    }

    /// One finished attempt: counted by kind and result, its time in the latency histogram.
    func attempt(_ kind: JobRequest.Kind, result: WorkerSummary.Attempt.Result, duration: Duration) {
        guard enabled else { return }
        Counter(label: Self.requests, dimensions: [("kind", kind.rawValue), ("result", result.rawValue)], factory: factory).increment()
        CoreMetrics.Timer(label: Self.requestDuration, dimensions: [("kind", kind.rawValue)], factory: factory)
            .recordNanoseconds(duration.wholeNanoseconds)
    }

    /// The model tokens and list-price cost of the run that served an attempt, as `job_runs` recorded them (the
    /// run's own meter counts retries and rejected answers too).
    func modelSpend(of runID: UUID, kind: JobRequest.Kind, pool: PostgresPool) async {
        guard enabled,
              let row = try? await pool.query(
                "SELECT prompt_tokens, completion_tokens, estimated_cost_usd::float8 AS cost FROM job_runs WHERE id = $1",
                [runID]).first
        else { return }
        let prompt = (try? row.decode("prompt_tokens", as: Int64.self)) ?? 0
        let completion = (try? row.decode("completion_tokens", as: Int64.self)) ?? 0
        let cost = (try? row.decode("cost", as: Double?.self)) ?? nil
        Counter(label: Self.modelTokens, dimensions: [("kind", kind.rawValue), ("type", "prompt")], factory: factory).increment(by: prompt)
        Counter(label: Self.modelTokens, dimensions: [("kind", kind.rawValue), ("type", "completion")], factory: factory)
            .increment(by: completion)
        if let cost {
            FloatingPointCounter(label: Self.modelCost, dimensions: [("kind", kind.rawValue)], factory: factory).increment(by: cost)
        } else {
            Counter(label: Self.modelCostUnknown, dimensions: [("kind", kind.rawValue)], factory: factory).increment()
        }
    }

    /// A lease heartbeat: `renewed`, `lost` (another worker holds the request now) or `error` (the query failed).
    func leaseRenewal(_ result: String) {
        guard enabled else { return }
        Counter(label: Self.leaseRenewals, dimensions: [("result", result)], factory: factory).increment()
    }

    func inFlight(_ count: Int) {
        guard enabled else { return }
        Gauge(label: Self.inFlight, factory: factory).record(count)
    }

    func notified() {
        guard enabled else { return }
        Counter(label: Self.notifications, factory: factory).increment()
    }

    /// Samples `job_requests` by state (ready: pending and due; waiting: pending with a retry delay; running).
    /// Called at scrape time, so the table is counted only when someone looks (through the partial status index).
    package func sampleQueueDepth(pool: PostgresPool) async throws {
        guard enabled else { return }
        let row = try await pool.query(
            """
            SELECT count(*) FILTER (WHERE status = 'pending' AND not_before <= now()) AS ready,
                   count(*) FILTER (WHERE status = 'pending' AND not_before > now()) AS waiting,
                   count(*) FILTER (WHERE status = 'running') AS running
            FROM job_requests WHERE status IN ('pending', 'running')
            """)[0]
        for state in ["ready", "waiting", "running"] {
            Gauge(label: Self.queueDepth, dimensions: [("state", state)], factory: factory).record(try row.decode(state, as: Int64.self))
        }
    }

    /// Samples how many conversations are in quarantine (through the partial `quarantined_at` index), at scrape time.
    package func sampleQuarantine(pool: PostgresPool) async throws {
        guard enabled else { return }
        Gauge(label: Self.quarantined, factory: factory).record(try await Quarantine(pool: pool).count())
    }
}
