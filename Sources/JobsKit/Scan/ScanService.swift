import Extractors
import Foundation
import Logging
import Postgres

/// The nightly scan: every conversation with messages newer than its watermark gets the new messages (plus
/// some earlier context) extracted, and its rows and advanced watermark committed in one transaction. A
/// crash loses nothing committed and repeats nothing committed; a failing conversation does not stop the others.
public struct ScanService: Sendable {
    public struct Failure: Sendable, Codable {
        public let conversationID: UUID
        public let error: String
    }

    public struct Summary: Sendable, Codable {
        public var runID: UUID
        public var provider: String
        public var conversations = 0
        public var failed = 0
        public var failures: [Failure] = []
        public var newMessages = 0
        /// New messages the pre-filter kept from the model.
        public var skippedMessages = 0
        public var items: [String: Int] = [:]
        public var rowsInserted = 0
        public var rowsUpdated = 0
        public var remindersCreated = 0
        public var requests = 0
        public var usage = TokenUsage()
        /// The tokens at list prices (`RunCost`), also in `job_runs.estimated_cost_usd`.
        public var cost: RunCost?
        public var seconds = 0.0
        /// Users in conversations whose rows changed: the ones the assistant should look at again.
        public var changedUsers: [UUID] = []
        /// What was found, per conversation, for the first conversations only (a human summary, not a report).
        public var found: [Found] = []
    }

    public struct Found: Sendable, Codable {
        public let conversation: String
        public let items: [String]
    }

    /// Progress after each conversation: done, failed, total at the start.
    public typealias Progress = @Sendable (_ done: Int, _ failed: Int, _ total: Int) -> Void

    public let pool: PostgresPool
    public let engine: ExtractionEngine
    public let options: ScanOptions
    let logger = Logger(label: "messageai.scan")

    public init(pool: PostgresPool, engine: ExtractionEngine, options: ScanOptions) {
        self.pool = pool
        self.engine = engine
        self.options = options
    }

    public func run(now: Date = Date(), progress: Progress? = nil) async throws -> Summary {
        let started = Date()
        let queue = ScanQueue(pool: pool, options: options)
        try await queue.prepare()
        let total = try await queue.pendingCount()
        let recorder = JobRunRecorder(pool: pool)
        let runID = try await recorder.start(
            .scan, provider: engine.provider.name, model: nil,
            options: ["concurrency": .integer(Int64(options.concurrency)),
                      "shard": .string("\(options.shardIndex)/\(options.shardCount)"),
                      "features": .array(options.features.map { .string($0.rawValue) })])
        let state = ScanState(summary: Summary(runID: runID, provider: engine.provider.name))
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<max(1, options.concurrency) {
                    group.addTask {
                        while let claim = try await state.nextClaim(queue: queue, limit: options.limit) {
                            await process(claim, runID: runID, now: now, queue: queue, state: state)
                            let snapshot = await state.summary
                            progress?(snapshot.conversations + snapshot.failed, snapshot.failed, total)
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            var outcome = JobRunRecorder.Outcome(status: .failed)
            outcome.error = "\(error)"
            try? await recorder.finish(runID, outcome)
            throw error
        }
        var summary = await state.summary
        summary.seconds = Date().timeIntervalSince(started)
        var outcome = JobRunRecorder.Outcome(status: summary.failed == 0 ? .succeeded : (summary.conversations > 0 ? .partial : .failed))
        outcome.conversationsProcessed = summary.conversations
        outcome.conversationsFailed = summary.failed
        outcome.itemCounts = summary.items
        outcome.requests = summary.requests
        outcome.usage = summary.usage
        summary.cost = RunCost.estimate(summary.usage, engine: engine, features: options.features)
        outcome.estimatedCostUSD = summary.cost?.usd
        outcome.error = summary.failures.first.map { "\(summary.failed) conversation(s) failed; first: \($0.error)" }
        try await recorder.finish(runID, outcome)
        return summary
    }

    private func process(_ claim: ScanQueue.Claim, runID: UUID, now: Date, queue: ScanQueue, state: ScanState) async {
        let reader = ConversationReader(contextMessages: options.contextMessages)
        do {
            guard let loaded = try await pool.withConnection({ try await reader.load(claim.conversationID, since: claim.watermark, now: now, on: $0) }) else {
                return
            }
            let newMessages = Array(loaded.messages[loaded.firstNewIndex...])
            var input = loaded
            var skipped = 0
            if options.preFilter {
                (input, skipped) = PreFilter().filter(loaded)
            }
            let hasNew = input.firstNewIndex < input.messages.count
            let run = hasNew ? try await engine.extract(input, features: options.features) : ExtractionRun()
            let features = options.features
            let lockTimeout = "\(Int((options.lockTimeoutSeconds * 1000).rounded()))ms"
            let written = try await pool.transaction { db in
                // A row lock held elsewhere fails this conversation after the bound instead of stalling the scan.
                try await db.query("SELECT set_config('lock_timeout', $1, true)", [lockTimeout])
                let written = hasNew
                    ? try await ExtractionStore().write(
                        run.extraction, input: input, features: features,
                        provenance: .init(runID: runID, prompts: run.prompts), replace: false, now: now, on: db)
                    : ExtractionStore.WriteSummary()
                try await ScanQueue.advance(claim.conversationID, to: newMessages.last, runID: runID, owner: options.owner, on: db)
                return written
            }
            await state.record(success: claim.conversationID, input: loaded, run: run, written: written,
                               newMessages: newMessages.count, skipped: skipped, features: features)
        } catch {
            logger.error("conversation failed", metadata: ["conversation": "\(claim.conversationID)", "error": "\(error)"])
            try? await queue.fail(claim.conversationID, error: "\(error)")
            await state.record(failure: claim.conversationID, error: "\(error)")
        }
    }
}

/// What the scan's workers share: the conversations already tried and the running totals.
actor ScanState {
    var summary: ScanService.Summary
    private var attempted: [UUID] = []
    private var changedUsers: Set<UUID> = []

    init(summary: ScanService.Summary) { self.summary = summary }

    func nextClaim(queue: ScanQueue, limit: Int?) async throws -> ScanQueue.Claim? {
        while true {
            if let limit, attempted.count >= limit { return nil }
            guard let claim = try await queue.claimNext(skipping: attempted) else { return nil }
            // Another worker's claim can finish while this one's query is in flight with an older skip list; if that
            // conversation already failed and released its lease, this query takes it again. Give it back.
            guard !attempted.contains(claim.conversationID) else {
                try await queue.release(claim.conversationID)
                continue
            }
            attempted.append(claim.conversationID)
            return claim
        }
    }

    func record(success id: UUID, input: ConversationInput, run: ExtractionRun, written: ExtractionStore.WriteSummary,
                newMessages: Int, skipped: Int, features: [ExtractionFeature]) {
        summary.conversations += 1
        summary.newMessages += newMessages
        summary.skippedMessages += skipped
        summary.requests += run.requests
        summary.usage += run.usage
        for feature in features { summary.items[feature.rawValue, default: 0] += run.extraction.count(feature) }
        let inserted = written.inserted.values.reduce(0, +), updated = written.updated.values.reduce(0, +)
        summary.rowsInserted += inserted
        summary.rowsUpdated += updated
        summary.remindersCreated += written.remindersCreated
        let lines = features.flatMap { feature in ExtractReport.items(feature, run.extraction).map { "\(feature.rawValue): \($0)" } }
        if !lines.isEmpty, summary.found.count < 20 {
            summary.found.append(.init(conversation: input.name, items: Array(lines.prefix(12))))
        }
        if inserted + updated > 0 {
            for participant in input.participants { if let id = UUID(uuidString: participant.id) { changedUsers.insert(id) } }
            summary.changedUsers = changedUsers.sorted { $0.uuidString < $1.uuidString }
        }
    }

    func record(failure id: UUID, error: String) {
        summary.failed += 1
        if summary.failures.count < 50 { summary.failures.append(.init(conversationID: id, error: error)) }
    }
}
