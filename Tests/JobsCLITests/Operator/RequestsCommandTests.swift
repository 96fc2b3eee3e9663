import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

@Suite("requests: list, retry and cancel job requests without SQL")
struct RequestsCommandTests {
    @Test("failing requests are listed, retried with `requests retry --failed` and then served by the worker")
    func failedThenRetriedThenServed() async throws {
        try await WorkerHarness.withDemo { db in
            // A model that rejects everything: each request fails for good on its only attempt.
            let server = try FakeOpenAIServer { _ in .error(status: 400, message: "this model rejects everything") }
            defer { server.stop() }
            let queue = JobRequestQueue(pool: db.pool)
            let ids = [try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday),
                       try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)]
            var options = WorkerHarness.options(once: true)
            options.retry.maxAttempts = 1
            let failing = try await RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server),
                                                  options: options).run()
            #expect(failing.failed == 2)

            let listed = try await JobsBinary.json([JobRequestAdmin.Listing].self, ["requests", "list", "--status", "failed"], db)
            #expect(listed.map(\.id) == ids)
            #expect(listed.allSatisfy { $0.status == "failed" && $0.attempts == 1 && $0.error?.contains("400") == true })
            let text = try await JobsBinary.run(["requests", "list", "--status", "failed"], db)
            #expect(text.code == 0)
            #expect(text.stdout.contains("\(ids[0])  extract  failed  conversation \(WorkerHarness.conversations.birthday.postgresValue)"))
            #expect(text.stdout.contains("2 failed: `messageai-jobs requests retry --failed`"))
            // Nothing pending yet.
            #expect(try await JobsBinary.json([JobRequestAdmin.Listing].self, ["requests", "list", "--status", "pending"], db).isEmpty)

            struct Changed: Decodable { let action: String; let ids: [Int64] }
            let retried = try await JobsBinary.json(Changed.self, ["requests", "retry", "--failed"], db)
            #expect(retried.action == "retried" && retried.ids == ids)
            for id in ids {
                let row = try await WorkerHarness.row(id, db.pool)
                #expect(row.status == "pending" && row.attempts == 0 && row.error == nil && row.finishedAt == nil)
                // The error history is kept, not overwritten.
                let events = try await JobRequestAdmin(pool: db.pool).events(id)
                #expect(events.count == 1)
                #expect(events.first?.action == "retry" && events.first?.previousStatus == "failed" && events.first?.previousAttempts == 1)
                #expect(events.first?.previousError?.contains("400") == true)
            }
            let retries: [Int] = try await db.pool.query("SELECT retries FROM job_requests WHERE id = ANY($1::bigint[])", [ids])
                .map { try $0.decode("retries") }
            #expect(retries == [1, 1])

            // The same worker code path serves them now (the rule-based provider needs no model).
            let serving = try await RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                                  options: WorkerHarness.options(once: true)).run()
            #expect(serving.done == 2)
            for id in ids {
                let row = try await WorkerHarness.row(id, db.pool)
                #expect(row.status == "done" && row.attempts == 1 && row.runID != nil)
            }
            #expect(try await JobsBinary.json([JobRequestAdmin.Listing].self, ["requests", "list", "--status", "failed"], db).isEmpty)
            let again = try await JobsBinary.run(["requests", "retry", "--failed"], db)
            #expect(again.code == 0 && again.stdout.contains("Nothing to do"))
        }
    }

    @Test("a cancelled request is never claimed; retry brings it back; wrong ids and statuses are refused, saying why")
    func cancelAndRefusals() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let admin = JobRequestAdmin(pool: db.pool)
            let id = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)

            let cancel = try await JobsBinary.run(["requests", "cancel", "\(id)"], db)
            #expect(cancel.code == 0, "stderr: \(cancel.stderr)")
            #expect(cancel.stdout.contains("1 request(s) cancelled: \(id)."))
            let idle = try await RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                               options: WorkerHarness.options(once: true)).run()
            #expect(idle.claimed == 0)
            #expect(try await WorkerHarness.row(id, db.pool).status == "cancelled")

            let twice = try await JobsBinary.run(["requests", "cancel", "\(id)"], db)
            #expect(twice.code != 0)
            #expect(twice.stderr.contains("cannot cancel request \(id): it is cancelled"))
            let unknown = try await JobsBinary.run(["requests", "retry", "999999"], db)
            #expect(unknown.code != 0)
            #expect(unknown.stderr.contains("no job request with id 999999"))
            let both = try await JobsBinary.run(["requests", "retry", "\(id)", "--failed"], db)
            #expect(both.code != 0)
            #expect(both.stderr.contains("give request ids or --failed"))

            #expect(try await admin.retry([id]) == [id])
            let served = try await RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                                 options: WorkerHarness.options(once: true)).run()
            #expect(served.done == 1)
            let retried = await #expect(throws: JobsError.self) { try await admin.retry([id]) }
            #expect(retried?.code == .conflict)
            #expect(retried?.description.hasPrefix("cannot retry request \(id): it is done;") == true)
            let cancelled = await #expect(throws: JobsError.self) { try await admin.cancel([id]) }
            #expect(cancelled?.code == .conflict)
            let missing = await #expect(throws: JobsError.self) { try await admin.cancel([id + 1_000_000]) }
            #expect(missing?.code == .notFound)
            #expect(missing?.description == "no job request with id \(id + 1_000_000)")
            #expect(try await admin.events(id).map(\.action) == ["cancel", "retry"])
            #expect(try await admin.events(id).map(\.previousStatus) == ["pending", "cancelled"])
        }
    }

    @Test("a request cancelled while a worker serves it stays cancelled: the worker's result is not recorded")
    func cancelWhileRunning() async throws {
        try await WorkerHarness.withDemo { db in
            let queue = JobRequestQueue(pool: db.pool)
            let id = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let claimed = try #require(try await queue.claim(owner: "w1", lease: .seconds(60), maxAttempts: 3))
            #expect(claimed.id == id)
            #expect(try await JobRequestAdmin(pool: db.pool).cancel([id]) == [id])
            #expect(try await queue.complete(id, owner: "w1", runID: UUID()) == false)
            #expect(try await queue.renew(id, owner: "w1", lease: .seconds(60)) == false)
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "cancelled" && row.runID == nil && row.leaseOwner == nil)
        }
    }
}
