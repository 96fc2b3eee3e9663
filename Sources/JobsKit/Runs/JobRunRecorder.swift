import Extractors
import Foundation
import JSONKit
import Postgres
import PromptKit

/// Records a job in `job_runs`: a row when it starts, its counts and outcome when it ends. The row is
/// written outside the job's own transactions, so a failed job still leaves its record.
public struct JobRunRecorder: Sendable {
    public enum Kind: String, Sendable { case extract, scan, assist, eval, worker, batch }
    public enum Status: String, Sendable, Codable { case running, succeeded, failed, partial, abandoned }

    public struct Outcome: Sendable {
        public var status: Status
        public var conversationsProcessed = 0
        public var conversationsFailed = 0
        public var itemCounts: [String: Int] = [:]
        public var requests = 0
        public var usage = TokenUsage()
        public var estimatedCostUSD: Double?
        public var error: String?

        public init(status: Status) { self.status = status }
    }

    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// - Parameter prompts: every prompt the run may send, with its content hash (`job_runs.prompts`).
    public func start(_ kind: Kind, provider: String, model: String?, options: JSONValue = .object([:]),
                      prompts: [PromptFingerprint] = []) async throws -> UUID {
        try await pool.query(
            "INSERT INTO job_runs (kind, provider, model, options, prompts) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb) RETURNING id",
            [kind.rawValue, provider, model, options, Self.json(prompts)])[0].decode("id")
    }

    /// `[{"id": …, "version": …, "sha256": …}]`, sorted by id, as `job_runs.prompts` and `assistant_runs.prompts` hold it.
    public static func json(_ prompts: [PromptFingerprint]) -> JSONValue {
        var seen = Set<PromptFingerprint>()
        return .array(prompts.filter { seen.insert($0).inserted }.sorted { ($0.id, $0.version) < ($1.id, $1.version) }.map {
            .object(JSONObject([("id", .string($0.id)), ("version", .integer(Int64($0.version))), ("sha256", .string($0.sha256))]))
        })
    }

    /// Marks scan runs that were killed (SIGKILL, a lost machine) as `abandoned`: still `running`, no claim for
    /// longer than their lease (`heartbeat_at`, or the start), and no live lease on any conversation. Returns how many.
    @discardableResult
    public func markAbandonedScans(except current: UUID) async throws -> Int {
        try await pool.query(
            """
            UPDATE job_runs r SET status = 'abandoned', finished_at = now(),
                error = 'abandoned: the process stopped without finishing (killed?); its leases have expired'
            WHERE r.kind = 'scan' AND r.status = 'running' AND r.id <> $1
              AND COALESCE(r.heartbeat_at, r.started_at)
                  < now() - make_interval(secs => COALESCE((r.options->>'lease_seconds')::double precision, 600))
              AND NOT EXISTS (SELECT 1 FROM scan_watermarks w WHERE w.claimed_by_run = r.id AND w.lease_expires_at >= now())
            """, [current]).affectedRows
    }

    public func finish(_ id: UUID, _ outcome: Outcome) async throws {
        let counts = JSONValue.object(JSONObject(outcome.itemCounts.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }))
        try await pool.query(
            """
            UPDATE job_runs SET finished_at = now(), status = $2, conversations_processed = $3, conversations_failed = $4,
                item_counts = $5::jsonb, requests = $6, prompt_tokens = $7, completion_tokens = $8, cached_prompt_tokens = $9,
                estimated_cost_usd = $10, error = $11
            WHERE id = $1
            """,
            [id, outcome.status.rawValue, outcome.conversationsProcessed, outcome.conversationsFailed, counts, outcome.requests,
             outcome.usage.promptTokens, outcome.usage.completionTokens, outcome.usage.cachedPromptTokens,
             outcome.estimatedCostUSD, outcome.error.map { String($0.withoutNULs.prefix(2000)) }])
    }
}
