import Foundation
import Postgres

/// The operator's side of `job_requests` (`messageai-jobs requests list|retry|cancel`): what is queued or failed, and
/// sending requests back to the queue or out of it without SQL. Every retry and cancel is recorded in
/// `job_request_events` with the status, attempts and error the request had, so no error history is lost.
public struct JobRequestAdmin: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// One request as `requests list` shows it.
    public struct Listing: Sendable, Codable, Equatable {
        public var id: Int64
        public var kind: String
        public var status: String
        public var conversationID: UUID?
        public var userID: UUID?
        public var attempts: Int
        /// Times an operator sent it back to pending (`requests retry`).
        public var retries: Int
        public var createdAt: Date
        public var notBefore: Date
        public var finishedAt: Date?
        public var leaseOwner: String?
        public var runID: UUID?
        public var error: String?

        enum CodingKeys: String, CodingKey {
            case id, kind, status, attempts, retries, error
            case conversationID = "conversation_id", userID = "user_id", createdAt = "created_at", notBefore = "not_before"
            case finishedAt = "finished_at", leaseOwner = "lease_owner", runID = "run_id"
        }

        /// The conversation or user the request is for.
        public var target: String {
            conversationID.map { "conversation \($0.postgresValue)" } ?? userID.map { "user \($0.postgresValue)" } ?? "-"
        }
    }

    /// The statuses `requests list --status` takes.
    public enum Status: String, Sendable, CaseIterable, Codable {
        case pending, running, done, failed, cancelled
    }

    /// Requests, oldest first within the newest `limit` (all statuses, or one).
    public func list(status: Status? = nil, limit: Int = 100) async throws -> [Listing] {
        let rows = try await pool.query(
            """
            SELECT * FROM (
              SELECT id, kind, status, conversation_id, user_id, attempts, retries, created_at, not_before, finished_at,
                     lease_owner, run_id, error
              FROM job_requests WHERE ($1::text IS NULL OR status = $1::text)
              ORDER BY id DESC LIMIT $2) AS newest
            ORDER BY id
            """, [status?.rawValue, limit])
        return try rows.map {
            Listing(id: try $0.decode("id"), kind: try $0.decode("kind"), status: try $0.decode("status"),
                    conversationID: try $0.decode("conversation_id"), userID: try $0.decode("user_id"),
                    attempts: try $0.decode("attempts"), retries: try $0.decode("retries"),
                    createdAt: try $0.decode("created_at"), notBefore: try $0.decode("not_before"),
                    finishedAt: try $0.decode("finished_at"), leaseOwner: try $0.decode("lease_owner"),
                    runID: try $0.decode("run_id"), error: try $0.decode("error"))
        }
    }

    /// Sends requests back to the queue now: pending, attempts reset to 0, due at once (the trigger wakes a worker).
    /// `ids` nil: every failed request. A named request must be failed, cancelled or pending (a pending one in
    /// backoff becomes due now); running and done ones are refused. Returns the ids retried.
    @discardableResult
    public func retry(_ ids: [Int64]?) async throws -> [Int64] {
        try await pool.transaction { db in
            let targets: [Int64]
            if let ids {
                try await Self.check(ids, allowed: ["failed", "cancelled", "pending"], action: "retry", on: db)
                targets = ids
            } else {
                targets = try await db.query("SELECT id FROM job_requests WHERE status = 'failed' ORDER BY id FOR UPDATE")
                    .map { try $0.decode("id", as: Int64.self) }
            }
            guard !targets.isEmpty else { return [] }
            try await Self.recordEvents("retry", targets, on: db)
            return try await db.query(
                """
                UPDATE job_requests SET status = 'pending', attempts = 0, not_before = now(), error = NULL, finished_at = NULL,
                    lease_owner = NULL, lease_expires_at = NULL, retries = retries + 1, retried_at = now()
                WHERE id = ANY($1::bigint[]) RETURNING id
                """, [targets]).map { try $0.decode("id", as: Int64.self) }.sorted()
        }
    }

    /// Takes requests out of the queue: status cancelled. A running one's worker loses its lease, so nothing it
    /// finishes is recorded against the request. Done and failed requests are refused (nothing left to cancel).
    @discardableResult
    public func cancel(_ ids: [Int64]) async throws -> [Int64] {
        try await pool.transaction { db in
            try await Self.check(ids, allowed: ["pending", "running"], action: "cancel", on: db)
            try await Self.recordEvents("cancel", ids, on: db)
            return try await db.query(
                """
                UPDATE job_requests SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
                WHERE id = ANY($1::bigint[]) RETURNING id
                """, [ids]).map { try $0.decode("id", as: Int64.self) }.sorted()
        }
    }

    /// One request's retries and cancellations, oldest first.
    public struct Event: Sendable, Codable, Equatable {
        public var action: String
        public var at: Date
        public var actor: String
        public var previousStatus: String
        public var previousAttempts: Int
        public var previousError: String?

        enum CodingKeys: String, CodingKey {
            case action, at, actor
            case previousStatus = "previous_status", previousAttempts = "previous_attempts", previousError = "previous_error"
        }
    }

    public func events(_ id: Int64) async throws -> [Event] {
        try await pool.query(
            """
            SELECT action, at, actor, previous_status, previous_attempts, previous_error FROM job_request_events
            WHERE request_id = $1 ORDER BY at, id
            """, [id]).map {
            Event(action: try $0.decode("action"), at: try $0.decode("at"), actor: try $0.decode("actor"),
                  previousStatus: try $0.decode("previous_status"), previousAttempts: try $0.decode("previous_attempts"),
                  previousError: try $0.decode("previous_error"))
        }
    }

    /// Locks the named requests and refuses the lot unless each exists with an allowed status.
    private static func check(_ ids: [Int64], allowed: Set<String>, action: String, on db: PostgresConnection) async throws {
        let rows = try await db.query("SELECT id, status FROM job_requests WHERE id = ANY($1::bigint[]) FOR UPDATE", [ids])
        var found: [Int64: String] = [:]
        for row in rows { found[try row.decode("id")] = try row.decode("status") }
        for id in ids {
            guard let status = found[id] else { throw JobsError.notFound("no job request with id \(id)") }
            guard allowed.contains(status) else {
                let why = switch status {
                case "running": "a worker is serving it; cancel it first (`requests cancel \(id)`) or wait"
                case "done": "it is done; enqueue a new one (`messageai-jobs request extract|assist`)"
                default: "only \(allowed.sorted().joined(separator: ", ")) requests can be"
                }
                throw JobsError.conflict("cannot \(action) request \(id): it is \(status); \(why)")
            }
        }
    }

    private static func recordEvents(_ action: String, _ ids: [Int64], on db: PostgresConnection) async throws {
        try await db.query(
            """
            INSERT INTO job_request_events (request_id, action, previous_status, previous_attempts, previous_error, previous_run_id)
            SELECT id, $2::text, status, attempts, error, run_id FROM job_requests WHERE id = ANY($1::bigint[]) ORDER BY id
            """, [ids, action])
    }
}
