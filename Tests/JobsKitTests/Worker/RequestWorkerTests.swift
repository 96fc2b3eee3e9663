import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Logging
import ServiceLifecycle
import Testing

@Suite("Request worker")
struct RequestWorkerTests {
    @Test("a request is picked up by its NOTIFY, long before the next poll")
    func pickupByNotification() async throws {
        try await WorkerHarness.withDemo { db in
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                       options: WorkerHarness.options(pollSeconds: 30))
            let running = try await WorkerHarness.start(worker)
            // The worker has made its first claim pass; its next poll is 30 s away. The app's plain INSERT is all it gets.
            let inserted = Date()
            let id: Int64 = try await db.pool.query(
                "INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1) RETURNING id",
                [WorkerHarness.conversations.birthday])[0].decode("id")
            // Acceptance criterion: picked up well before the poll could have fired (generous slack: half the interval).
            try await WorkerHarness.waitUntilFinished([id], db.pool, timeout: 15)
            let waited = Date().timeIntervalSince(inserted)
            await worker.stop()
            let summary = try await running.value

            #expect(waited < 15)
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "done")
            #expect(row.attempts == 1)
            #expect(row.runID != nil)
            #expect(row.leaseOwner == nil)
            #expect(summary.notifications >= 1)
            #expect(summary.done == 1)
            #expect(summary.stopReason == .stopped)
            let runs = try await db.pool.query("SELECT kind, status FROM job_runs WHERE id = $1", [try #require(row.runID)])
            #expect(try runs.first?.decode("status", as: String.self) == "succeeded")
        }
    }

    @Test("a failing request is retried with backoff and fails after max attempts; a good one is done with rows written")
    func retriesThenFails() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { request in
                // Only the birthday conversation gets answers; every other request is rejected.
                guard String(decoding: request.body, as: UTF8.self).contains("Jump Zone") else {
                    return .error(status: 400, message: "this conversation is not accepted")
                }
                return .chat(content: FakeAnswers.answer(for: request).serialized())
            }
            defer { server.stop() }
            let queue = JobRequestQueue(pool: db.pool)
            let bad = try await queue.enqueue(.extract, id: WorkerHarness.conversations.carpool)
            let good = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server),
                                       options: WorkerHarness.options(pollSeconds: 30))
            let running = try await WorkerHarness.start(worker)
            try await WorkerHarness.waitUntilFinished([bad, good], db.pool, timeout: 30)
            await worker.stop()
            let summary = try await running.value

            let failed = try await WorkerHarness.row(bad, db.pool)
            #expect(failed.status == "failed")
            #expect(failed.attempts == 3)
            #expect(failed.finishedAt != nil)
            #expect(failed.error?.hasPrefix("attempt 3 of 3: ") == true)
            #expect(failed.error?.contains("400") == true)
            let done = try await WorkerHarness.row(good, db.pool)
            #expect(done.status == "done")
            #expect(done.attempts == 1)
            #expect(done.error == nil)
            // The worker reads the database's clock, so the demo's party (March 7, 2026) is before its today: the night
            // reconciles it away (nothing dated before today is shown) and its run succeeded without a row.
            let runs = try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [try #require(done.runID)])
            #expect(try runs.first?.decode("status", as: String.self) == "succeeded")
            let events = try await db.pool.query("SELECT title FROM calendar_events WHERE conversation_id = $1 AND closed_at IS NULL",
                                                 [WorkerHarness.conversations.birthday])
            #expect(events.isEmpty)
            #expect(summary.done == 1)
            #expect(summary.retriesScheduled == 2)
            #expect(summary.failed == 1)
            #expect(summary.attempts.filter { $0.requestID == bad }.map(\.attempt) == [1, 2, 3])
        }
    }

    @Test("two workers on ten requests process each exactly once")
    func twoWorkersNeverShare() async throws {
        try await WorkerHarness.withDemo(maxConnections: 10) { db in
            let queue = JobRequestQueue(pool: db.pool)
            // Ten pieces of work (one pending request per conversation): the four demo chats and six copies of the
            // birthday chat.
            var all = [WorkerHarness.conversations.classGroup, WorkerHarness.conversations.carpool,
                       WorkerHarness.conversations.birthday, WorkerHarness.conversations.coParents]
            for _ in 0..<6 {
                let copy: UUID = try await db.pool.query(
                    "INSERT INTO conversations (name, is_group) VALUES ('Birthday copy', true) RETURNING id")[0].decode("id")
                try await db.pool.query(
                    """
                    INSERT INTO messages (conversation_id, sender_id, content, created_at)
                    SELECT $1, sender_id, content, created_at FROM messages WHERE conversation_id = $2
                    """, [copy, WorkerHarness.conversations.birthday])
                all.append(copy)
            }
            var ids: [Int64] = []
            for conversation in all { ids.append(try await queue.enqueue(.extract, id: conversation)) }
            #expect(Set(ids).count == 10)
            let handler = try WorkerHarness.rulesHandler(db.pool)
            let first = RequestWorker(pool: db.pool, handler: handler, options: WorkerHarness.options(once: true))
            let second = RequestWorker(pool: db.pool, handler: handler, options: WorkerHarness.options(once: true))
            #expect(first.options.owner != second.options.owner)
            async let a = first.run()
            async let b = second.run()
            let summaries = try await [a, b]

            #expect(summaries.map(\.done).reduce(0, +) == 10)
            #expect(summaries.map(\.claimed).reduce(0, +) == 10)
            let handled = summaries.flatMap { $0.attempts.map(\.requestID) }.sorted()
            #expect(handled == ids)
            let rows = try await db.pool.query(
                "SELECT status, attempts, run_id FROM job_requests WHERE id = ANY($1::bigint[])", [ids])
            #expect(try rows.allSatisfy { try $0.decode("status", as: String.self) == "done" && $0.decode("attempts", as: Int.self) == 1 })
            let runIDs = Set(try rows.map { try $0.decode("run_id", as: UUID.self) })
            #expect(runIDs.count == 10)
            #expect(try await db.pool.query("SELECT count(*) AS n FROM job_runs WHERE kind = 'extract'")[0].decode("n", as: Int.self) == 10)
        }
    }

    @Test("without an LLM an assist request fails at once, saying no LLM is configured")
    func assistWithoutLLM() async throws {
        try await WorkerHarness.withDemo { db in
            let id = try await JobRequestQueue(pool: db.pool).enqueue(.assist, id: WorkerHarness.users.maria)
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                       options: WorkerHarness.options(once: true))
            let summary = try await worker.run()
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "failed")
            #expect(row.attempts == 1)
            #expect(row.error?.contains("no LLM is configured") == true)
            #expect(summary.failed == 1)
            #expect(summary.stopReason == .drained)
        }
    }

    @Test("a worker renews the lease of a long request, so no other worker takes it over")
    func leaseIsRenewed() async throws {
        try await WorkerHarness.withDemo { db in
            // The events answer waits until the test lets it go, so the request is running for as long as needed.
            let gate = ReplyGate()
            let server = try FakeOpenAIServer { request in
                let answer = ScriptedReply.chat(content: FakeAnswers.answer(for: request).serialized())
                let isEvents = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue == "calendar_events"
                return isEvents ? .held(gate, then: answer) : answer
            }
            defer {
                gate.open()
                server.stop()
            }
            let queue = JobRequestQueue(pool: db.pool)
            let id = try await queue.enqueue(.extract, id: WorkerHarness.conversations.birthday)
            var options = WorkerHarness.options(pollSeconds: 30)
            options.lease = .seconds(60)
            let clock = TestClock()
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server), options: options, clock: clock)
            let running = try await WorkerHarness.start(worker)
            // The request is running and its heartbeat waits for a third of the lease on the test's clock.
            #expect(await clock.waitForSleepers(1))
            #expect(try await WorkerHarness.row(id, db.pool).status == "running")
            // Its lease runs out, as Postgres sees it: without a renewal the request is claimable again.
            try await db.pool.query("UPDATE job_requests SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id])
            clock.advance(by: .seconds(20))
            try await waitUntil(10, "the heartbeat renews the lease") {
                try await db.pool.query("SELECT 1 FROM job_requests WHERE id = $1 AND lease_expires_at > now() + interval '50 seconds'", [id]).count == 1
            }
            let stolen = try await queue.claim(owner: "intruder", lease: .seconds(60), maxAttempts: 3)
            gate.open()
            try await WorkerHarness.waitUntilFinished([id], db.pool, timeout: 30)
            await worker.stop()
            let summary = try await running.value

            #expect(stolen == nil)
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "done")
            #expect(row.attempts == 1)
            #expect(summary.done == 1)
        }
    }

    @Test("on stop, a request still running after the grace period is released to the queue")
    func stopReleasesUnfinished() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { _ in .delay(60, then: .error(status: 500, message: "too late")) }
            defer { server.stop() }
            let id = try await JobRequestQueue(pool: db.pool).enqueue(.extract, id: WorkerHarness.conversations.birthday)
            var options = WorkerHarness.options(pollSeconds: 30)
            options.grace = .milliseconds(300)
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.llmHandler(db.pool, server: server), options: options)
            let running = try await WorkerHarness.start(worker)
            _ = await server.waitForRequests(count: 1, timeout: .seconds(10))
            #expect(try await WorkerHarness.row(id, db.pool).status == "running")
            await worker.stop()
            let summary = try await running.value

            #expect(summary.released == [id])
            #expect(summary.stopReason == .stopped)
            // The cancelled attempt had ended (and was counted) before run() returned.
            #expect(summary.attempts.map(\.result) == [.released])
            let row = try await WorkerHarness.row(id, db.pool)
            #expect(row.status == "pending")
            #expect(row.leaseOwner == nil)
            #expect(row.attempts == 0)
            #expect(row.error == nil)
            // The extract run the cancelled attempt opened is closed, not left `running`.
            let runs = try await db.pool.query("SELECT status, finished_at FROM job_runs WHERE kind = 'extract'")
            #expect(runs.count == 1)
            #expect(try runs.allSatisfy { try $0.decode("status", as: String.self) == "failed" && $0.decode("finished_at", as: Date?.self) != nil })
        }
    }

    @Test("a ServiceGroup's graceful shutdown stops the worker service like stop()")
    func gracefulShutdownThroughServiceGroup() async throws {
        try await WorkerHarness.withDemo { db in
            let worker = RequestWorker(pool: db.pool, handler: try WorkerHarness.rulesHandler(db.pool),
                                       options: WorkerHarness.options(pollSeconds: 30))
            let service = WorkerService(worker)
            let group = ServiceGroup(configuration: .init(services: [service], logger: Logger(label: "test")))
            let running = Task { try await group.run() }
            let id = try await JobRequestQueue(pool: db.pool).enqueue(.extract, id: WorkerHarness.conversations.birthday)
            try await WorkerHarness.waitUntilFinished([id], db.pool, timeout: 30)
            await group.triggerGracefulShutdown()
            try await running.value
            let summary = try #require(await service.summary)
            #expect(summary.stopReason == .stopped)
            #expect(summary.done == 1)
        }
    }
}

/// Schema-valid answers per feature, told apart by the response format's schema name.
enum FakeAnswers {
    static func answer(for request: RecordedRequest) -> JSONValue {
        switch request.json?["response_format"]?["json_schema"]?["name"]?.stringValue ?? "" {
        case "calendar_events":
            ["events": [[
                "title": "Emma's 8th birthday party", "date": "2026-03-07", "time": "11:00", "end_time": "13:00",
                "location": "Jump Zone (45 Oak St)", "description": "Birthday party", "category": "social", "confidence": 0.9,
                "date_phrase": "Saturday, March 7 from 11am to 1pm", "evidence": "Emma's 8th birthday party is", "source_message_ids": ["m1"],
            ]]]
        case "decisions": ["decisions": []]
        case "priority_messages": ["messages": []]
        case "rsvps": ["rsvps": []]
        case "deadlines": ["deadlines": []]
        default: ["unknown": true]
        }
    }
}