import Foundation
import Postgres
import TestSupport
import Testing
@testable import JobsKit

/// Claims search past the run's highest claimed conversation first, so a claim's cost does not grow with the run
/// (issue 15), and then once more from the start, so nothing skipped on the way is left behind.
@Suite struct ScanCursorTests {
    /// A claim closure that records the cursors it was asked with and answers from a script.
    final class Script: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [UUID?]
        private var cursors: [ScanQueue.Position?] = []
        var asked: [UUID?] { lock.withLock { cursors.map { $0?.conversationID } } }

        init(_ answers: [UUID?]) { self.answers = answers }

        func claim(after: ScanQueue.Position?) -> ScanQueue.Claim? {
            lock.withLock {
                cursors.append(after)
                let next = answers.isEmpty ? nil : answers.removeFirst()
                return next.map { ScanQueue.Claim(conversationID: $0, watermark: nil) }
            }
        }
    }

    static let low = UUID(uuidString: "10000000-0000-0000-0000-000000000000")!
    static let high = UUID(uuidString: "f0000000-0000-0000-0000-000000000000")!
    static let middle = UUID(uuidString: "80000000-0000-0000-0000-000000000000")!

    @Test func claimsSearchPastTheCursorThenOnceFromTheStart() async throws {
        let state = ScanState(summary: ScanService.Summary(runID: UUID(), provider: "rules"))
        // high, then nothing past high, so from the start: low (skipped earlier); then nothing anywhere.
        let script = Script([Self.high, nil, Self.low, nil, nil])
        let first = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        let second = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        let third = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        #expect(first?.conversationID == Self.high)
        #expect(second?.conversationID == Self.low)
        #expect(third == nil)
        // The cursor never moves back: after claiming `low` from the start, the search still begins past `high`.
        #expect(script.asked == [nil, Self.high, nil, Self.high, nil])
    }

    @Test func anEmptyQueueStopsEveryWorkerWithoutAnotherSearch() async throws {
        let state = ScanState(summary: ScanService.Summary(runID: UUID(), provider: "rules"))
        // high; then nothing past it and nothing from the start: the queue is empty for this run.
        let script = Script([Self.high, nil, nil, Self.low])
        let first = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        let second = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        let third = try await state.nextClaim({ script.claim(after: $0) }, limit: nil)
        #expect(first?.conversationID == Self.high)
        #expect(second == nil)
        // The next worker is told at once, without a query (the script would have answered `low`).
        #expect(third == nil)
        #expect(script.asked == [nil, Self.high, nil])
    }

    @Test func theCursorOrdersUUIDsAsPostgresDoes() async throws {
        var ids = (0..<200).map { _ in UUID() } + [Self.low, Self.middle, Self.high]
        ids.append(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
        ids.append(UUID(uuidString: "00000000-0000-0000-0000-000000000100")!)
        ids.append(UUID(uuidString: "ffffffff-ffff-ffff-ffff-fffffffffffe")!)
        try await TestDatabase.with(migrate: false) { db in
            let rows = try await db.pool.query("SELECT id FROM unnest($1::uuid[]) AS t(id) ORDER BY id", [ids])
            let postgres = try rows.map { try $0.decode("id", as: UUID.self) }
            #expect(postgres == ids.sorted(by: ScanState.precedes))
        }
    }
}

/// The claim beats the run's heartbeat, which `markAbandonedScans` reads against the lease; once a second is plenty,
/// and beating on every claim rewrote the run's row some 80 times a second at concurrency 64.
@Suite struct ScanHeartbeatTests {
    @Test func aClaimBeatsTheHeartbeatAtMostOnceASecond() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 2, seed: 109)
            try await ScanHarness.load(workload, into: db)
            let runID = try await JobRunRecorder(pool: db.pool).start(.scan, provider: "rules", model: nil, options: [:])
            let queue = ScanQueue(pool: db.pool, options: ScanHarness.options(owner: "heartbeat-test"))
            try await queue.prepare()
            func heartbeat() async throws -> Date? {
                try await db.pool.query("SELECT heartbeat_at FROM job_runs WHERE id = $1", [runID])[0].decode("heartbeat_at", as: Date?.self)
            }
            #expect(try await heartbeat() == nil)

            #expect(try await queue.claimNext(runID: runID) != nil)
            let first = try #require(try await heartbeat(), "the first claim beats")
            #expect(try await queue.claimNext(runID: runID) != nil)
            #expect(try await heartbeat() == first, "a claim within the second leaves the row alone")

            try await db.pool.query("UPDATE job_runs SET heartbeat_at = heartbeat_at - interval '5 seconds' WHERE id = $1", [runID])
            #expect(try await queue.claimNext(runID: runID) != nil)
            let later = try #require(try await heartbeat())
            #expect(later > first.addingTimeInterval(-1), "a claim after a quiet second beats again")
        }
    }
}
