package import AgentRuntime
package import Core
package import Extractors
package import Foundation
package import Postgres
package import PromptKit
import Synchronization

/// Records a job in `job_runs`: a row when it starts, its counts and outcome when it ends. The row is
/// written outside the job's own transactions, so a failed job still leaves its record.
///
/// Every open row has a heartbeat (`alive_until`, pushed forward every third of `lease` while the process lives),
/// and `finish` closes the row even when the job's task was cancelled or the database connection broke (retried on
/// a fresh connection, bounded). A row whose heartbeat stopped without a close (SIGKILL) is marked `abandoned` by
/// the next run of any kind, with what the dead run had committed counted.
package struct JobRunRecorder: Sendable {
    package enum Kind: String, Sendable { case extract, scan, assist, eval, worker, batch }
    package enum Status: String, Sendable, Codable { case running, succeeded, failed, partial, abandoned }

    package struct Outcome: Sendable {
        package var status: Status
        package var conversationsProcessed = 0
        package var conversationsFailed = 0
        var itemCounts: [String: Int] = [:]
        /// Per feature, how the evidence check treated the model's items; written under `item_counts.grounding`.
        package var grounding: [String: GroundingTally] = [:]
        package var requests = 0
        package var usage = TokenUsage()
        var estimatedCostUSD: Double?
        package var error: String?
        /// Facts about the run beyond the counts (e.g. messages skipped by the read cap), merged into `job_runs.details`.
        package var details: JSONValue = .object([:])
        /// What failed (the first `RunFailure.recordedLimit`), written under `details.failures` for `runs show`.
        package var failures: [RunFailure] = []

        package init(status: Status) { self.status = status }
    }

    package let pool: PostgresPool
    /// How long an open row counts as alive without a heartbeat.
    package var lease: Duration

    package init(pool: PostgresPool, lease: Duration = JobRunRecorder.defaultLease) {
        self.pool = pool
        self.lease = lease
    }

    /// `[{"id": …, "version": …, "sha256": …}]`, sorted by id, as `job_runs.prompts` and `assistant_runs.prompts` hold it.
    package static func json(_ prompts: [PromptFingerprint]) -> JSONValue {
        var seen = Set<PromptFingerprint>()
        return .array(prompts.filter { seen.insert($0).inserted }.sorted { ($0.id, $0.version) < ($1.id, $1.version) }.map {
            .object(JSONObject([("id", .string($0.id)), ("version", .integer(Int64($0.version))), ("sha256", .string($0.sha256))]))
        })
    }

    /// How soon the next run may call a silent run abandoned when `MESSAGEAI_RUN_LEASE_SECONDS` is unset; the
    /// variable is read with the other settings (`Settings.runLease`) and handed to the services that record runs.
    package static let defaultLease: Duration = .seconds(300)

    package static let leaseSetting = "MESSAGEAI_RUN_LEASE_SECONDS"
    package static let leaseRange = 2...86_400

    /// The lease a `MESSAGEAI_RUN_LEASE_SECONDS` value sets; throws unless it is whole seconds in `leaseRange`.
    package static func lease(fromSetting text: String) throws -> Duration {
        guard let seconds = Int(text.trimmingCharacters(in: .whitespaces)), leaseRange.contains(seconds) else {
            throw JobsError.invalidInput("\(leaseSetting)='\(text.prefix(40))' is not valid: expected whole seconds from \(leaseRange.lowerBound) to \(leaseRange.upperBound)")
        }
        return .seconds(seconds)
    }

    private var leaseSeconds: Double { lease.seconds }

    /// Opens the run's row and starts its heartbeat; then marks runs found dead as `abandoned` (a scan does that
    /// itself, to report how many). Every row names the build (`BuildInfo`) and `promptSet`, the SHA-256 of the
    /// prompt set the run uses (`PromptLibrary.fingerprint`; nil when it uses none), and `prompts` every prompt the
    /// run may send with its content hash (`job_runs.prompts`), so a night's rows trace back to what made them.
    package func start(
        _ kind: Kind, provider: String, model: String?, options: JSONValue = .object([:]), promptSet: String? = nil,
        prompts: [PromptFingerprint] = []
    ) async throws -> UUID {
        let id: UUID = try await pool.query(
            """
            INSERT INTO job_runs (kind, provider, model, options, alive_until, build_version, build_commit, prompt_set_sha256, prompts)
            VALUES ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5), $6, $7, $8, $9::jsonb) RETURNING id
            """,
            [kind.rawValue, provider, model, options, leaseSeconds, BuildInfo.version, BuildInfo.commit, promptSet,
             Self.json(prompts)])[0].decode("id")
        OpenRuns.shared.open(id, heartbeat: heartbeat(id), configuration: pool.configuration)
        if kind != .scan { _ = try? await markAbandoned(except: id) }
        return id
    }

    /// Lets a stop by signal (`closeOpenRuns`) record what the run spent so far from `meter`, including requests
    /// still in flight.
    package func track(_ id: UUID, _ meter: LLMSpendMeter) {
        OpenRuns.shared.attach(meter, to: id)
    }

    private func heartbeat(_ id: UUID) -> Task<Void, Never> {
        let (pool, seconds) = (pool, leaseSeconds)
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(seconds / 3))
                if Task.isCancelled { return }
                _ = try? await pool.query(
                    "UPDATE job_runs SET alive_until = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'running'",
                    [id, seconds])
            }
        }
    }

    /// Marks runs of any kind that were killed (SIGKILL, a lost machine) as `abandoned`: still `running`, with a
    /// heartbeat in the past (the conversations a dead scan claimed come back when their own leases expire). The conversations whose watermark a
    /// dead run committed and the assistant runs it saved are counted in its row. Returns how many were marked.
    @discardableResult
    func markAbandoned(except current: UUID) async throws -> Int {
        try await pool.query(
            """
            WITH dead AS (
              SELECT r.id FROM job_runs r
              WHERE r.status = 'running' AND r.id <> $1 AND \(Self.lapsed)
              FOR UPDATE SKIP LOCKED)
            UPDATE job_runs r SET status = 'abandoned', finished_at = GREATEST(now(), r.started_at),
                conversations_processed = GREATEST(r.conversations_processed,
                    (SELECT count(*) FROM scan_watermarks w WHERE w.run_id = r.id)),
                item_counts = r.item_counts || COALESCE(
                    (SELECT jsonb_build_object('assistant_runs', count(*)) FROM assistant_runs a WHERE a.run_id = r.id HAVING count(*) > 0),
                    '{}'::jsonb),
                error = $2
            FROM dead WHERE r.id = dead.id
            """, [current, Self.abandonedError]).affectedRows
    }

    /// True for a row of `job_runs r` whose process is gone (when its status is `running`): its heartbeat ran out.
    /// Rows from before heartbeats: scans by their last claim against their lease and no live conversation lease,
    /// others after a day. `markAbandoned` marks such rows; `runs` shows them abandoned before anything has.
    package static let lapsed = """
        CASE WHEN r.alive_until IS NOT NULL THEN r.alive_until < now()
             WHEN r.kind = 'scan' THEN COALESCE(r.heartbeat_at, r.started_at)
               < now() - make_interval(secs => COALESCE((r.options->>'lease_seconds')::double precision, 600))
               AND NOT EXISTS (SELECT 1 FROM scan_watermarks w WHERE w.claimed_by_run = r.id AND w.lease_expires_at >= now())
             ELSE r.started_at < now() - interval '1 day' END
        """

    /// The error `markAbandoned` records, and `runs` shows for a lapsed run not yet marked.
    package static let abandonedError = "abandoned: the process stopped without closing its run (killed?); its heartbeat and leases expired"

    /// The scan's name for `markAbandoned`.
    @discardableResult
    func markAbandonedScans(except current: UUID) async throws -> Int {
        try await markAbandoned(except: current)
    }

    /// Closes the row. Runs even when the caller's task was cancelled (a worker's grace period ran out, a shutdown),
    /// and retries a broken connection on a fresh one for about 15 s in all before it gives up: the row then keeps
    /// its heartbeat's expiry, and the next run marks it `abandoned`.
    package func finish(_ id: UUID, _ outcome: Outcome) async throws {
        func object(_ counts: [String: Int]) -> JSONValue {
            .object(JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }))
        }
        var entries = outcome.itemCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer(Int64($0.value))) }
        if !outcome.grounding.isEmpty {
            entries.append(("grounding", .object(JSONObject(outcome.grounding.sorted { $0.key < $1.key }.map { ($0.key, object($0.value.json)) }))))
        }
        let counts = JSONValue.object(JSONObject(entries))
        var details = outcome.details
        if !outcome.failures.isEmpty, case .object(var object) = details {
            let kept = outcome.failures.prefix(RunFailure.recordedLimit).map {
                var failure = $0
                failure.error = String(failure.error.withoutNULs.prefix(RunFailure.maxErrorLength))
                return failure
            }
            object["failures"] = (try? JSONValue.encode(Array(kept))) ?? .array([])
            details = .object(object)
        }
        let binds: [any PostgresEncodable] = [
            id, outcome.status.rawValue, outcome.conversationsProcessed, outcome.conversationsFailed, counts, outcome.requests,
            outcome.usage.promptTokens, outcome.usage.completionTokens, outcome.usage.cachedPromptTokens,
            outcome.estimatedCostUSD, outcome.error.map { String($0.withoutNULs.prefix(2000)) }, details]
        let sql = """
            UPDATE job_runs SET finished_at = now(), status = $2, conversations_processed = $3, conversations_failed = $4,
                item_counts = $5::jsonb, requests = $6, prompt_tokens = $7, completion_tokens = $8, cached_prompt_tokens = $9,
                estimated_cost_usd = $10, error = $11, details = details || $12::jsonb, alive_until = NULL
            WHERE id = $1
            """
        let pool = pool
        try await Task {
            try await Self.closing(id, configuration: pool.configuration) { connection in
                if let connection { try await connection.query(sql, binds) } else { try await pool.query(sql, binds) }
            }
        }.value
    }

    /// How closing a run record retries after a broken connection: 7 attempts, 0.25 s doubling (about 16 s in all).
    static let closingRetry = RetryPolicy(maxAttempts: 7, baseDelay: .milliseconds(250), maxDelay: .seconds(8))

    /// Runs `write` on the pool, then after a broken connection again on fresh connections, as `closingRetry` says.
    /// Waits even when the task is cancelled (a signal is what closes most runs). Ends the run's heartbeat and
    /// forgets it once written.
    static func closing(_ id: UUID, configuration: PostgresConfiguration,
                        _ write: @Sendable (PostgresConnection?) async throws -> Void) async throws {
        OpenRuns.shared.stopHeartbeat(id)
        try await closingRetry.run(
            retryingWhen: { ($0 as? PostgresError).map { $0.isConnectionFailure || $0.kind == .usage } ?? false },
            sleep: { try? await Task.sleep(for: $0) }
        ) { attempt in
            if attempt == 1 {
                try await write(nil)
            } else {
                var fresh = configuration
                fresh.connectTimeout = 3
                let connection = try await PostgresConnection.connect(fresh)
                defer { connection.close() }
                try await write(connection)
            }
        }
        OpenRuns.shared.close(id)
    }

    /// Closes every run this process still has open, after a signal that ends it (SIGTERM, SIGINT): `partial` when
    /// the run committed conversations or assistant runs, else `failed`, with `reason` as the error. A run with a
    /// meter (`track`) records the requests it sent, in flight ones included (named in the error and in
    /// `details.requests_in_flight`: their tokens are unknown), and the tokens of those answered. Bounded by
    /// `timeout`; returns how many rows it closed.
    package static func closeOpenRuns(reason: String, timeout: Duration = .seconds(10)) async -> Int {
        let open = OpenRuns.shared.all()
        guard !open.isEmpty else { return 0 }
        return await withTaskGroup(of: Int.self) { group in
            group.addTask {
                var closed = 0
                for (id, configuration, meter) in open {
                    let inFlight = meter?.inFlight ?? 0
                    let error = inFlight == 0 ? reason
                        : reason + "; \(inFlight) model request\(inFlight == 1 ? " was" : "s were") in flight (tokens unknown)"
                    let usage = meter?.usage ?? .zero
                    let details: JSONValue = inFlight == 0 ? .object([:]) : ["requests_in_flight": .integer(Int64(inFlight))]
                    do {
                        try await closing(id, configuration: configuration) { connection in
                            let sql = """
                                UPDATE job_runs r SET finished_at = now(), alive_until = NULL, error = $2,
                                    requests = GREATEST(r.requests, $3), prompt_tokens = GREATEST(r.prompt_tokens, $4),
                                    completion_tokens = GREATEST(r.completion_tokens, $5), details = r.details || $6::jsonb,
                                    conversations_processed = GREATEST(r.conversations_processed, c.conversations),
                                    status = CASE WHEN c.conversations + c.assistant > 0 THEN 'partial' ELSE 'failed' END
                                FROM (SELECT (SELECT count(*) FROM scan_watermarks w WHERE w.run_id = $1) AS conversations,
                                             (SELECT count(*) FROM assistant_runs a WHERE a.run_id = $1) AS assistant) c
                                WHERE r.id = $1 AND r.status = 'running'
                                """
                            let binds: [any PostgresEncodable] = [
                                id, error, max(meter?.sent ?? 0, meter?.attempts ?? 0), usage.promptTokens, usage.completionTokens, details]
                            if let connection {
                                try await connection.query(sql, binds)
                            } else {
                                // Never the job's own pool: its connections may be busy with the work being stopped.
                                let connection = try await PostgresConnection.connect(configuration)
                                defer { connection.close() }
                                try await connection.query(sql, binds)
                            }
                        }
                        closed += 1
                    } catch {}
                }
                return closed
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return -1
            }
            let first = await group.next() ?? 0
            group.cancelAll()
            return max(0, first)
        }
    }
}

/// The runs this process has open, with their heartbeats: what a signal handler closes before the process exits.
final class OpenRuns: Sendable {
    static let shared = OpenRuns()

    private struct Entry {
        var heartbeat: Task<Void, Never>?
        let configuration: PostgresConfiguration
        var meter: LLMSpendMeter?
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    func open(_ id: UUID, heartbeat: Task<Void, Never>, configuration: PostgresConfiguration) {
        entries.withLock { $0[id] = Entry(heartbeat: heartbeat, configuration: configuration) }
    }

    func attach(_ meter: LLMSpendMeter, to id: UUID) {
        entries.withLock { $0[id]?.meter = meter }
    }

    func stopHeartbeat(_ id: UUID) {
        entries.withLock { entries in
            entries[id]?.heartbeat?.cancel()
            entries[id]?.heartbeat = nil
        }
    }

    func close(_ id: UUID) {
        entries.withLock { $0[id] = nil }
    }

    func all() -> [(UUID, PostgresConfiguration, LLMSpendMeter?)] {
        entries.withLock { $0.map { ($0.key, $0.value.configuration, $0.value.meter) } }
    }
}
