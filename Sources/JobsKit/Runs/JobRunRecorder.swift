import Extractors
import Foundation
import JSONKit
import Postgres

/// Records a job in `job_runs`: a row when it starts, its counts and outcome when it ends. The row is
/// written outside the job's own transactions, so a failed job still leaves its record.
public struct JobRunRecorder: Sendable {
    public enum Kind: String, Sendable { case extract, scan, assist, eval, worker, batch }
    public enum Status: String, Sendable, Codable { case running, succeeded, failed, partial }

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

    public func start(_ kind: Kind, provider: String, model: String?, options: JSONValue = .object([:])) async throws -> UUID {
        try await pool.query(
            "INSERT INTO job_runs (kind, provider, model, options) VALUES ($1, $2, $3, $4::jsonb) RETURNING id",
            [kind.rawValue, provider, model, options])[0].decode("id")
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
