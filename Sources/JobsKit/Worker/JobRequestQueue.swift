import AgentRuntime
package import Core
package import Foundation
package import Postgres

/// `job_requests` as a work queue: claims under `FOR UPDATE SKIP LOCKED` with a lease, so any number of workers
/// on any machines serve the table without doing a request twice, and a crashed worker's requests are taken over
/// when their lease expires. Every state change after the claim is conditional on still holding the lease.
package struct JobRequestQueue: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// What became of a failed attempt.
    package enum FailureOutcome: Sendable, Equatable {
        /// Back to pending; retried after `not_before`.
        case retryScheduled(notBefore: Date)
        /// Out of attempts (or a permanent error): status failed.
        case failed
        /// The lease was lost meanwhile (another worker took the request over): nothing was changed.
        case leaseLost
    }

    // MARK: - Enqueue (the app's side, also `messageai-jobs request`)

    /// Inserts a request after checking that its conversation or user exists; returns its id (an existing pending
    /// request's when the same work already waits, see `enqueueOnce`).
    @discardableResult
    package func enqueue(_ kind: JobRequest.Kind, id target: UUID) async throws -> Int64 {
        try await enqueueOnce(kind, id: target).id
    }

    /// Inserts a request after checking that its conversation or user exists. When a request for the same work (the
    /// conversation of an extract, the user of an assist run) is already pending, nothing is inserted (migration 130's
    /// trigger) and that request's id comes back with `created` false.
    package func enqueueOnce(_ kind: JobRequest.Kind, id target: UUID) async throws -> (id: Int64, created: Bool) {
        let (table, column, noun) = kind == .extract ? ("conversations", "conversation_id", "conversation") : ("users", "user_id", "user")
        guard try await !pool.query("SELECT 1 FROM \(table) WHERE id = $1", [target]).isEmpty else {
            throw JobsError.notFound("no \(noun) with id \(target.uuidString.lowercased())")
        }
        return try await pool.transaction { db -> (id: Int64, created: Bool) in
            if let row = try await db.query(
                "INSERT INTO job_requests (kind, \(column)) VALUES ($1, $2) RETURNING id", [kind.rawValue, target]).first {
                return (try row.decode("id"), true)
            }
            // Skipped: the pending request for this work committed before the insert took its turn, so it is visible.
            let existing = try await db.query(
                "SELECT id FROM job_requests WHERE status = 'pending' AND kind = $1 AND \(column) = $2 ORDER BY id LIMIT 1",
                [kind.rawValue, target])
            guard let row = existing.first else { throw JobsError.conflict("the \(kind.rawValue) request for \(noun) \(target.uuidString.lowercased()) was neither inserted nor found pending") }
            return (try row.decode("id"), false)
        }
    }

    // MARK: - Worker side

    /// Claims the next ready request: pending and due, or running under an expired lease (its worker died).
    package func claim(owner: String, lease: Duration, maxAttempts: Int) async throws -> JobRequest? {
        // An attempt whose worker died (SIGKILL, a lost machine: its lease expired) ends as `abandoned`, so no attempt
        // keeps a NULL result, whatever killed it.
        try await pool.query(
            """
            UPDATE job_request_attempts a SET finished_at = now(), result = 'abandoned',
                error = 'the worker stopped without finishing: its lease expired at ' || r.lease_expires_at
            FROM job_requests r
            WHERE a.request_id = r.id AND a.finished_at IS NULL AND a.owner = r.lease_owner
              AND r.status = 'running' AND r.lease_expires_at < now()
            """)
        // A request whose worker keeps dying with it must not be retried forever.
        try await pool.query(
            """
            UPDATE job_requests SET status = 'failed', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL,
                error = 'the worker running attempt ' || attempts || ' stopped without finishing (lease expired); '
                        || 'no attempts left'
            WHERE status = 'running' AND lease_expires_at < now() AND attempts >= $1
            """, [maxAttempts])
        let rows = try await pool.query(
            """
            WITH candidate AS (
              SELECT id FROM job_requests
              WHERE (status = 'pending' AND not_before <= now()) OR (status = 'running' AND lease_expires_at < now())
              ORDER BY not_before, id
              LIMIT 1
              FOR UPDATE SKIP LOCKED)
            , claimed AS (
              UPDATE job_requests r SET status = 'running', lease_owner = $1,
                  lease_expires_at = now() + make_interval(secs => $2::int), attempts = r.attempts + 1
              FROM candidate WHERE r.id = candidate.id
              RETURNING r.id, r.kind, r.conversation_id, r.user_id, r.attempts)
            , attempt AS (
              INSERT INTO job_request_attempts (request_id, attempt, owner) SELECT id, attempts, $1 FROM claimed)
            SELECT * FROM claimed
            """, [owner, lease.wholeSeconds])
        guard let row = rows.first else { return nil }
        let kindText: String = try row.decode("kind")
        guard let kind = JobRequest.Kind(rawValue: kindText) else {
            throw PostgresDecodingFailure("job_requests.kind '\(kindText)' is not extract or assist")
        }
        return JobRequest(id: try row.decode("id"), kind: kind, conversationID: try row.decode("conversation_id"),
                          userID: try row.decode("user_id"), attempts: try row.decode("attempts"))
    }

    /// Extends a claim while its request is still being worked on. False when the lease was lost.
    @discardableResult
    package func renew(_ id: Int64, owner: String, lease: Duration) async throws -> Bool {
        try await pool.query(
            """
            UPDATE job_requests SET lease_expires_at = now() + make_interval(secs => $3::int)
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            """, [id, owner, lease.wholeSeconds]).affectedRows == 1
    }

    /// Marks a request done with the job run that served it. False when the lease was lost meanwhile.
    @discardableResult
    package func complete(_ id: Int64, owner: String, runID: UUID) async throws -> Bool {
        try await pool.query(
            """
            UPDATE job_requests SET status = 'done', finished_at = now(), run_id = $3, error = NULL,
                lease_owner = NULL, lease_expires_at = NULL
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            """, [id, owner, runID]).affectedRows == 1
    }

    /// Records a failed attempt: back to pending after a backoff delay, or failed when no attempts are left.
    package func fail(_ request: JobRequest, owner: String, error: String, permanent: Bool,
                     retry: RetryPolicy) async throws -> FailureOutcome {
        let text = "attempt \(request.attempts) of \(retry.maxAttempts): \(error)"
        let rows = try await pool.query(
            """
            UPDATE job_requests SET
                status = CASE WHEN $4::boolean OR attempts >= $5::int THEN 'failed' ELSE 'pending' END,
                not_before = CASE WHEN $4::boolean OR attempts >= $5::int THEN not_before
                                  ELSE now() + make_interval(secs => $6::float8) END,
                finished_at = CASE WHEN $4::boolean OR attempts >= $5::int THEN now() END,
                error = $3, lease_owner = NULL, lease_expires_at = NULL
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            RETURNING status, not_before
            """,
            [request.id, owner, String(text.prefix(Self.maxErrorLength)), permanent, retry.maxAttempts,
             retry.delay(afterAttempt: request.attempts).seconds])
        guard let row = rows.first else { return .leaseLost }
        return try row.decode("status", as: JobRequest.Status.self) == .failed ? .failed : .retryScheduled(notBefore: try row.decode("not_before"))
    }

    /// Closes this owner's open attempt of a request (`job_request_attempts`) with how it ended; `requests show` lists them.
    func finishAttempt(_ id: Int64, owner: String, result: String, error: String?, runID: UUID?) async throws {
        try await pool.query(
            """
            UPDATE job_request_attempts SET finished_at = now(), result = $3, error = $4, run_id = $5
            WHERE id = (SELECT max(id) FROM job_request_attempts WHERE request_id = $1 AND owner = $2 AND finished_at IS NULL)
            """, [id, owner, result, error.map { String($0.prefix(Self.maxErrorLength)) }, runID])
    }

    /// Gives back requests this owner holds (all, or only `ids`) without counting the interrupted attempt, so
    /// another worker takes them at once. Used when a worker stops before they finish. Returns their ids.
    @discardableResult
    package func release(owner: String, ids: [Int64]? = nil) async throws -> [Int64] {
        let rows = try await pool.query(
            """
            UPDATE job_requests SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL,
                attempts = GREATEST(attempts - 1, 0)
            WHERE lease_owner = $1 AND status = 'running' AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))
            RETURNING id
            """, [owner, ids])
        return try rows.map { try $0.decode("id", as: Int64.self) }.sorted()
    }

    /// Seconds until the next request becomes ready (a pending one's `not_before` or a running one's lease
    /// expiry), 0 if one is ready now, nil if there is nothing to wait for.
    package func secondsUntilNextDue() async throws -> Double? {
        let rows = try await pool.query(
            """
            SELECT EXTRACT(EPOCH FROM (min(due) - now()))::float8 AS seconds FROM (
              SELECT min(not_before) AS due FROM job_requests WHERE status = 'pending'
              UNION ALL
              SELECT min(lease_expires_at) FROM job_requests WHERE status = 'running') AS d
            """)
        return try rows.first?.decode("seconds", as: Double?.self).map { max(0, $0) }
    }

    /// Errors stored in `job_requests.error` are cut to this many characters.
    package static let maxErrorLength = 2000
}
