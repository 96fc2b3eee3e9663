import Core
package import Extractors
package import Foundation
package import Postgres
import JobsKit

/// The operator's side of `job_requests` (`messageai-jobs requests list|retry|cancel`): what is queued or failed, and
/// sending requests back to the queue or out of it without SQL. Every retry and cancel is recorded in
/// `job_request_events` with the status, attempts and error the request had, so no error history is lost.
package struct JobRequestAdmin: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// One request as `requests list` shows it.
    package struct Listing: Sendable, Codable, Equatable {
        package var id: Int64
        package var kind: String
        package var status: String
        package var conversationID: UUID?
        package var userID: UUID?
        package var attempts: Int
        /// Times an operator sent it back to pending (`requests retry`).
        package var retries: Int
        package var createdAt: Date
        package var notBefore: Date
        package var finishedAt: Date?
        package var leaseOwner: String?
        package var runID: UUID?
        package var error: String?
        /// The worker of the latest attempt (the one holding it while it runs).
        package var owner: String?
        /// The latest attempt's time: so far while it runs, its whole length once it ended; nil before any attempt.
        package var elapsedSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case id, kind, status, attempts, retries, error, owner
            case conversationID = "conversation_id", userID = "user_id", createdAt = "created_at", notBefore = "not_before"
            case finishedAt = "finished_at", leaseOwner = "lease_owner", runID = "run_id", elapsedSeconds = "elapsed_seconds"
        }

        /// The conversation or user the request is for.
        package var target: String {
            conversationID.map { "conversation \($0.postgresValue)" } ?? userID.map { "user \($0.postgresValue)" } ?? "-"
        }
    }

    /// The statuses `requests list --status` takes.
    package enum Status: String, Sendable, CaseIterable, Codable {
        case pending, running, done, failed, cancelled
    }

    /// Requests, oldest first within the newest `limit` (all statuses, or one).
    package func list(status: Status? = nil, limit: Int = 100) async throws -> [Listing] {
        let rows = try await pool.query(
            """
            SELECT * FROM (
              SELECT \(Self.listingColumns)
              FROM job_requests r \(Self.latestAttempt) WHERE ($1::text IS NULL OR r.status = $1::text)
              ORDER BY r.id DESC LIMIT $2) AS newest
            ORDER BY id
            """, [status?.rawValue, limit])
        return try rows.map(Self.listing)
    }

    /// The columns of a `Listing`, with the latest attempt's owner and time (`latestAttempt`).
    private static let listingColumns = """
        r.id, r.kind, r.status, r.conversation_id, r.user_id, r.attempts, r.retries, r.created_at, r.not_before, r.finished_at,
        r.lease_owner, r.run_id, r.error, coalesce(r.lease_owner, a.owner) AS owner,
        extract(epoch FROM coalesce(a.finished_at, CASE WHEN r.status = 'running' THEN now() END) - a.started_at)::float8 AS elapsed
        """
    private static let latestAttempt = """
        LEFT JOIN LATERAL (SELECT owner, started_at, finished_at FROM job_request_attempts
                           WHERE request_id = r.id ORDER BY id DESC LIMIT 1) a ON true
        """

    private static func listing(_ row: PostgresRow) throws -> Listing {
        Listing(id: try row.decode("id"), kind: try row.decode("kind"), status: try row.decode("status"),
                conversationID: try row.decode("conversation_id"), userID: try row.decode("user_id"),
                attempts: try row.decode("attempts"), retries: try row.decode("retries"),
                createdAt: try row.decode("created_at"), notBefore: try row.decode("not_before"),
                finishedAt: try row.decode("finished_at"), leaseOwner: try row.decode("lease_owner"),
                runID: try row.decode("run_id"), error: try row.decode("error"), owner: try row.decode("owner"),
                elapsedSeconds: try row.decode("elapsed"))
    }

    /// One attempt of a request: which worker, when, how it ended.
    package struct Attempt: Sendable, Codable, Equatable {
        package var attempt: Int
        package var owner: String
        package var startedAt: Date
        package var finishedAt: Date?
        /// done, retry_scheduled, failed, lease_lost, released, deferred, or abandoned (its worker died: set by the claim that
        /// takes the request over); nil while it runs.
        package var result: String?
        package var error: String?
        package var runID: UUID?
        package var seconds: Double?
        /// What the model said in the answers that failed this attempt's run (kept with the run's failures).
        package var answers: [ModelAnswer]?

        enum CodingKeys: String, CodingKey {
            case attempt, owner, result, error, seconds, answers
            case startedAt = "started_at", finishedAt = "finished_at", runID = "run_id"
        }
    }

    /// A request with every attempt and every operator action (`requests show ID`).
    package struct Detail: Sendable, Codable, Equatable {
        package var request: Listing
        package var attempts: [Attempt]
        package var events: [Event]
    }

    /// One request in full; nil when no request has this id.
    package func show(_ id: Int64) async throws -> Detail? {
        guard let row = try await pool.query(
            "SELECT \(Self.listingColumns) FROM job_requests r \(Self.latestAttempt) WHERE r.id = $1", [id]).first else { return nil }
        let attempts = try await pool.query(
            """
            SELECT a.attempt, a.owner, a.started_at, a.finished_at, a.result, a.error, a.run_id,
                   extract(epoch FROM coalesce(a.finished_at, now()) - a.started_at)::float8 AS seconds,
                   (SELECT jsonb_agg(answer) FROM job_runs r, jsonb_array_elements(COALESCE(r.details->'failures', '[]')) f,
                           jsonb_array_elements(COALESCE(f->'answers', '[]')) answer
                    WHERE r.id = a.run_id) AS answers
            FROM job_request_attempts a WHERE a.request_id = $1 ORDER BY a.id
            """, [id]).map {
            let answers: JSONValue? = try $0.decode("answers")
            return Attempt(attempt: try $0.decode("attempt"), owner: try $0.decode("owner"), startedAt: try $0.decode("started_at"),
                           finishedAt: try $0.decode("finished_at"), result: try $0.decode("result"), error: try $0.decode("error"),
                           runID: try $0.decode("run_id"), seconds: try $0.decode("seconds"),
                           answers: answers.flatMap { try? $0.decode([ModelAnswer].self) })
        }
        return Detail(request: try Self.listing(row), attempts: attempts, events: try await events(id))
    }

    /// Sends requests back to the queue now: pending, attempts reset to 0, due at once (the trigger wakes a worker).
    /// `ids` nil: every failed request. A named request must be failed, cancelled or pending (a pending one in
    /// backoff becomes due now); running and done ones are refused. A request whose work (its conversation or user)
    /// another pending request already waits for is left as it is: one pending request per piece of work. Returns the
    /// ids retried.
    @discardableResult
    package func retry(_ ids: [Int64]?) async throws -> [Int64] {
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
            let chosen = try await Self.onePerWork(targets, on: db)
            guard !chosen.isEmpty else { return [] }
            try await Self.recordEvents("retry", chosen, on: db)
            return try await db.query(
                """
                UPDATE job_requests SET status = 'pending', attempts = 0, not_before = now(), error = NULL, finished_at = NULL,
                    lease_owner = NULL, lease_expires_at = NULL, retries = retries + 1, retried_at = now()
                WHERE id = ANY($1::bigint[]) RETURNING id
                """, [chosen]).map { try $0.decode("id", as: Int64.self) }.sorted()
        }
    }

    /// The requests of `ids` that may become pending: one per piece of work (a pending one first, else the oldest), and
    /// none whose work another request already waits for (migration 130).
    private static func onePerWork(_ ids: [Int64], on db: PostgresConnection) async throws -> [Int64] {
        try await db.query(
            """
            SELECT DISTINCT ON (t.kind, \(workKey("t"))) t.id FROM job_requests t
            WHERE t.id = ANY($1::bigint[])
              AND NOT EXISTS (SELECT 1 FROM job_requests p WHERE p.status = 'pending' AND p.id <> t.id AND p.kind = t.kind
                              AND \(workKey("p")) = \(workKey("t")) AND NOT p.id = ANY($1::bigint[]))
            ORDER BY t.kind, \(workKey("t")), (t.status = 'pending') DESC, t.id
            """, [ids]).map { try $0.decode("id", as: Int64.self) }
    }

    /// What makes two requests the same work: the conversation of an extract, the user of an assist run.
    static func workKey(_ alias: String) -> String {
        "(CASE WHEN \(alias).kind = 'extract' THEN \(alias).conversation_id ELSE \(alias).user_id END)"
    }

    /// Takes requests out of the queue: status cancelled. A running one's worker loses its lease, so nothing it
    /// finishes is recorded against the request. Done and failed requests are refused (nothing left to cancel).
    @discardableResult
    package func cancel(_ ids: [Int64]) async throws -> [Int64] {
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
    package struct Event: Sendable, Codable, Equatable {
        package var action: String
        package var at: Date
        package var actor: String
        package var previousStatus: String
        package var previousAttempts: Int
        package var previousError: String?

        enum CodingKeys: String, CodingKey {
            case action, at, actor
            case previousStatus = "previous_status", previousAttempts = "previous_attempts", previousError = "previous_error"
        }
    }

    package func events(_ id: Int64) async throws -> [Event] {
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
                case "done": "to run it again, enqueue a new one (`messageai-jobs requests extract --conversation ID` or "
                    + "`messageai-jobs requests assist --user ID`)"
                default: "only \(allowed.sorted().joined(separator: " or ")) requests can be \(action == "retry" ? "retried" : action + "led")"
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
