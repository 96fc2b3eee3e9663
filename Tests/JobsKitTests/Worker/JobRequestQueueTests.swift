import Core
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport

@Suite("Job request queue")
struct JobRequestQueueTests {
    @Test("enqueue checks that the conversation or user exists and says which id is unknown")
    func enqueueValidates() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let extract = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let assist = try await queue.enqueue(.assist, id: WorkerHarness.users.maria)
            #expect(assist > extract)
            let rows = try await db.pool.query("SELECT kind, conversation_id, user_id, status FROM job_requests ORDER BY id")
            #expect(try rows.map { try $0.decode("kind", as: String.self) } == ["extract", "assist"])
            #expect(try rows[0].decode("conversation_id", as: UUID?.self) == WorkerHarness.conversations.birthday)
            #expect(try rows[1].decode("user_id", as: UUID?.self) == WorkerHarness.users.maria)

            let missing = UUID(uuidString: "00000000-0000-4000-8000-00000000dead")!
            let error = await #expect(throws: JobsError.self) { try await queue.enqueue(.extract, id: missing) }
            #expect(error?.code == .notFound)
            #expect(error?.description == "no conversation with id 00000000-0000-4000-8000-00000000dead")
            let user = await #expect(throws: JobsError.self) { try await queue.enqueue(.assist, id: missing) }
            #expect(user?.code == .notFound)
            #expect(user?.description == "no user with id 00000000-0000-4000-8000-00000000dead")
            #expect(try await db.pool.query("SELECT count(*) AS n FROM job_requests")[0].decode("n", as: Int.self) == 2)
        }
    }

    @Test("a claim takes the oldest ready request, leases it and counts the attempt; the next claim skips it")
    func claimLeases() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let first = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let later = try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)
            try await db.pool.query("UPDATE job_requests SET not_before = now() + interval '1 hour' WHERE id = $1", [later])

            let claim = try #require(try await queue.claim(owner: "w1", lease: .seconds(60), maxAttempts: 3))
            #expect(claim.id == first)
            #expect(claim.kind == .extract)
            #expect(claim.conversationID == WorkerHarness.conversations.birthday)
            #expect(claim.attempts == 1)
            let row = try await WorkerHarness.row(first, db.pool)
            #expect(row.status == "running")
            #expect(row.leaseOwner == "w1")
            #expect(try #require(row.leaseExpiresAt) > Date().addingTimeInterval(30))
            // The other request is not due yet, and the first is leased: nothing left to claim.
            #expect(try await queue.claim(owner: "w2", lease: .seconds(60), maxAttempts: 3) == nil)
            let due = try #require(try await queue.secondsUntilNextDue())
            #expect(due > 30 && due <= 60)
        }
    }

    @Test("an expired lease is taken over; with no attempts left the request fails instead")
    func expiredLease() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let id = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            _ = try #require(try await queue.claim(owner: "crashed", lease: .seconds(60), maxAttempts: 2))
            try await db.pool.query("UPDATE job_requests SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id])
            let retaken = try #require(try await queue.claim(owner: "w2", lease: .seconds(60), maxAttempts: 2))
            #expect(retaken.id == id)
            #expect(retaken.attempts == 2)
            // The late worker's lease is gone: it can neither complete nor fail the request.
            #expect(try await !queue.complete(id, owner: "crashed", runID: UUID()))

            try await db.pool.query("UPDATE job_requests SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id])
            #expect(try await queue.claim(owner: "w3", lease: .seconds(60), maxAttempts: 2) == nil)
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "failed")
            #expect(row.leaseOwner == nil)
            #expect(row.error?.contains("lease expired") == true)
            // Both killed attempts end with a true result, not NULL (issue 47).
            let attempts = try await db.pool.query(
                "SELECT owner, result, finished_at IS NOT NULL AS finished, error FROM job_request_attempts WHERE request_id = $1 ORDER BY id", [id])
            #expect(try attempts.map { try $0.decode("owner", as: String.self) } == ["crashed", "w2"])
            for attempt in attempts {
                #expect(try attempt.decode("result", as: String?.self) == "abandoned")
                #expect(try attempt.decode("finished", as: Bool.self))
                #expect(try attempt.decode("error", as: String?.self)?.contains("lease expired") == true)
            }
        }
    }

    @Test("a failed attempt goes back to pending after the backoff delay, and fails for good on the last attempt")
    func failSchedulesRetry() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let id = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let retry = RetryPolicy(maxAttempts: 2, baseDelay: .seconds(100), maxDelay: .seconds(1000))
            let before = try await db.pool.query("SELECT now() AS t")[0].decode("t", as: Date.self)

            let first = try #require(try await queue.claim(owner: "w", lease: .seconds(60), maxAttempts: 2))
            let outcome = try await queue.fail(first, owner: "w", error: "HTTP 400", permanent: false, retry: retry)
            guard case .retryScheduled(let notBefore) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(notBefore.timeIntervalSince(before) >= 100)
            #expect(notBefore.timeIntervalSince(before) < 130)
            var row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "pending")
            #expect(row.leaseOwner == nil && row.leaseExpiresAt == nil)
            #expect(row.error == "attempt 1 of 2: HTTP 400")
            #expect(try await queue.claim(owner: "w", lease: .seconds(60), maxAttempts: 2) == nil)

            try await db.pool.query("UPDATE job_requests SET not_before = now() WHERE id = $1", [id])
            let second = try #require(try await queue.claim(owner: "w", lease: .seconds(60), maxAttempts: 2))
            let long = String(repeating: "x", count: 5000)
            #expect(try await queue.fail(second, owner: "w", error: long, permanent: false, retry: retry) == .failed)
            row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "failed")
            #expect(row.attempts == 2)
            #expect(row.finishedAt != nil)
            #expect(row.error?.count == JobRequestQueue.maxErrorLength)
            #expect(row.error?.hasPrefix("attempt 2 of 2: xxx") == true)
        }
    }

    @Test("a permanent error fails the request on its first attempt")
    func permanentFailure() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let id = try await queue.enqueue(.assist, id: WorkerHarness.users.maria)
            let claim = try #require(try await queue.claim(owner: "w", lease: .seconds(60), maxAttempts: 3))
            #expect(try await queue.fail(claim, owner: "w", error: "no LLM", permanent: true, retry: .workerRequests) == .failed)
            #expect(try await WorkerHarness.row(id, db.pool).status == "failed")
        }
    }

    @Test("release gives a claimed request back: pending, lease cleared, the interrupted attempt not counted")
    func releaseReturnsToPending() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let mine = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let theirs = try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)
            _ = try #require(try await queue.claim(owner: "me", lease: .seconds(60), maxAttempts: 3))
            _ = try #require(try await queue.claim(owner: "other", lease: .seconds(60), maxAttempts: 3))

            #expect(try await queue.release(owner: "me") == [mine])
            let row = try await WorkerHarness.row(mine, db.pool)
            #expect(row.status == "pending")
            #expect(row.leaseOwner == nil)
            #expect(row.leaseExpiresAt == nil)
            #expect(row.attempts == 0)
            // Another worker's claim is untouched, and the released request is claimable again at once.
            #expect(try await WorkerHarness.row(theirs, db.pool).leaseOwner == "other")
            #expect(try await queue.claim(owner: "next", lease: .seconds(60), maxAttempts: 3)?.id == mine)
            #expect(try await queue.release(owner: "nobody") == [])
        }
    }

    @Test("retry delays double from the base and stop at the ceiling")
    func backoffDelays() {
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(30), maxDelay: .seconds(200))
        #expect((1...5).map { retry.delay(afterAttempt: $0) } == [30, 60, 120, 200, 200].map { Duration.seconds($0) })
        #expect(retry.delay(afterAttempt: 1000) == .seconds(200))
        #expect(RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .seconds(10)).delay(afterAttempt: 3) == .zero)
        let worker = RetryPolicy.workerRequests
        #expect(worker.maxAttempts == 3 && worker.jitter == .none && worker.totalBudget == nil, "a stored delay has no jitter")
        #expect((1...7).map { worker.delay(afterAttempt: $0, random: 0) } == [30, 60, 120, 240, 480, 900, 900].map { Duration.seconds($0) })
    }
}
