package import AgentRuntime
package import Extractors
package import Foundation
package import Core
package import Logging
package import Postgres
import ServiceLifecycle
import NIOConcurrencyHelpers

/// The nightly scan: every conversation with messages newer than its watermark gets the new messages (plus
/// some earlier context) extracted, and its rows and advanced watermark committed in one transaction. A
/// crash loses nothing committed and repeats nothing committed; a failing conversation does not stop the others.
package struct ScanService: Sendable {
    package struct Failure: Sendable, Codable {
        package let conversationID: UUID
        package let error: String
        /// The feature whose answer failed, when the error names one.
        package var feature: String?
        /// What the model said in the answers that failed (redacted, bounded).
        package var answers: [ModelAnswer]?

        init(conversationID: UUID, error: String, feature: String? = nil, answers: [ModelAnswer]? = nil) {
            self.conversationID = conversationID
            self.error = error
            self.feature = feature
            self.answers = answers
        }
    }

    package struct Summary: Sendable, Codable {
        package var runID: UUID
        package var provider: String
        package var conversations = 0
        package var failed = 0
        package var failures: [Failure] = []
        /// Conversations whose answers were re-asked and then passed, with the answers that were not used (the first
        /// `RunFailure.recordedLimit`), for `runs show`.
        package var reasked: [Failure] = []
        package var newMessages = 0
        /// New messages the pre-filter kept from the model.
        package var skippedMessages = 0
        /// Older messages never read because a conversation's first scan found more than the read cap (the newest
        /// 2,000 are read); the watermark moved past them. Also in `job_runs.details`.
        package var messagesOverCap = 0
        /// New messages dated after the moment they were read (a wrong device clock, or a member writing `created_at`):
        /// read as of that moment, so they never move a watermark past now. Also in `job_runs.details`.
        package var futureDatedMessages = 0
        /// Conversations with more new messages than the read cap: the newest were read, the older ones left as a
        /// backlog (`scan_backlog`) that later scans read oldest first, with the room their new messages leave.
        package var backlogged = 0
        /// Conversations whose messages exceeded the read cap (the first 50 ids, with how many were skipped).
        package var overCap: [OverCap] = []
        /// Conversations this run quarantined (they failed the same way on `quarantineAfter` scans in a row).
        package var quarantined: [Failure] = []
        /// Conversations of this shard in quarantine at the end of the run, passed over by scans.
        package var quarantinedTotal = 0
        /// Conversations taken out of quarantine at the start (`--retry-quarantined`).
        package var quarantineReleased = 0
        package var items: [String: Int] = [:]
        /// Per feature, how the evidence check kept, moved or dropped the model's items (`GroundingTally`).
        package var grounding: [String: GroundingTally] = [:]
        package var rowsInserted = 0
        package var rowsUpdated = 0
        package var remindersCreated = 0
        /// Items closed tonight per feature, and parts of answers the reconciliation refused per kind (docs/over-nights.md).
        package var closed: [String: Int] = [:]
        package var refused: [String: Int] = [:]
        package var requests = 0
        package var usage = TokenUsage()
        /// The tokens at list prices (`RunCost`), also in `job_runs.estimated_cost_usd`.
        package var cost: RunCost?
        /// How the extraction asked the model: `combined` or `per-feature` (`RequestMode`).
        package var mode = RequestMode.productDefault.rawValue
        /// The night's estimated cost: extraction plus the proactive pass's assistant runs.
        package var night: NightCost?
        package var seconds = 0.0
        /// Users in conversations whose rows changed: the ones the assistant should look at again.
        var changedUsers: [UUID] = []
        /// What was found, per conversation, for the first `ScanReport.conversationsListed` conversations only (a
        /// human summary, not a report: the rows are in the feature tables).
        package var found: [Found] = []
        /// Conversations in which something was found, listed in `found` or not.
        package var conversationsWithFindings = 0
        /// The proactive pass run after extraction (nil when `proactive` is nil).
        package var proactive: ProactivePass.Summary?
        /// Failures whose record could not be written either (the database went away, a lock held on the watermark):
        /// their claims end when this run's record is closed (or their lease expires), and the next scan retries them.
        package var unrecordedFailures: [Failure] = []
        /// Conversations whose lease expired mid-work and that another scanner took over (`ScanLeaseLost`): not failures,
        /// nothing of them written by this run, their tokens still counted. The first 50 ids are listed.
        package var lostLeases = 0
        package var lostLeaseConversations: [UUID] = []
        /// Why the run stopped claiming before the work ran out (a shutdown signal, cancellation, an outage); nil when
        /// it did not.
        package var stoppedEarly: String?
        /// The outage that stopped the run: the model server's circuit breaker opened, or the database stayed
        /// unreachable. The run ends `failed` and the command exits `ExitStatus.outage`.
        package var outage: String?
        /// Conversations given back untouched because of the outage (their failure counts unchanged): the next scan
        /// takes them at once.
        package var deferred = 0
        /// The first `RunFailure.recordedLimit` of them, for `runs show`.
        package var deferredConversations: [UUID] = []
        /// Pending conversations of this shard a run that stopped early never claimed (nil when it did not stop
        /// early), and the first `RunFailure.recordedLimit` of them: what the next scan still has to do.
        package var unreached: Int?
        package var unreachedConversations: [UUID] = []
        /// Conversations in flight when the run was cancelled (with the model, or claimed and read ahead of it):
        /// nothing of them was committed, and their leases were released so the next scan takes them at once.
        package var interrupted = 0
        /// Pending conversations of this shard another scanner held a live lease on at the end, and when the last ends.
        package var leasedElsewhere = 0
        package var leasedUntil: Date?
        /// Earlier scan runs found killed (still `running`, no heartbeat or live lease) and marked `abandoned`.
        package var abandonedRuns = 0
        /// Why the run's own `job_runs` row could not be closed (the database was lost at the end); nil when it was.
        package var runRecordError: String?
        /// What the run's `job_runs` row says: `succeeded`, `partial` (a conversation or the proactive pass failed for
        /// someone, or it stopped early) or `failed`.
        package var status = JobRunRecorder.Status.running
    }

    package struct OverCap: Sendable, Codable {
        package let conversationID: UUID
        package let skippedMessages: Int
    }

    package struct Found: Sendable, Codable {
        package let conversationID: UUID
        package let conversation: String
        package let items: [FoundItem]
        /// Items found but not listed in `items` (at most `ScanReport.itemsPerConversation` are).
        package var more = 0
    }

    /// One item found: its feature, its fields as stored (snake_case, like the rows) and the summary's line for it.
    package struct FoundItem: Sendable, Codable {
        package let feature: String
        package let fields: JSONValue
        package let summary: String
    }

    /// Progress after each conversation: done, failed, total at the start.
    package typealias Progress = @Sendable (_ done: Int, _ failed: Int, _ total: Int) -> Void

    package let pool: PostgresPool
    package let engine: ExtractionEngine
    package let options: ScanOptions
    /// Run after extraction for the changed users plus users with something coming up; nil: no pass (`--no-assist`).
    package var proactive: ProactivePass?
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    /// Every line of a run carries its `run` id; lines about one conversation its `conversation` id too.
    let logger: Logger
    /// Awaited in the claim step, after the search's start is fixed and before its query is sent: a seam for tests
    /// that must hold a claim until other work has happened. Nil outside tests.
    var beforeClaim: (@Sendable () async -> Void)?

    /// The features this scan runs: those of `options`, or every feature of the engine's registry.
    package var features: [ExtractionFeature] { options.features ?? engine.registry.ids }

    package init(pool: PostgresPool, engine: ExtractionEngine, options: ScanOptions, logger: Logger = Logger(label: "messageai.scan")) {
        self.pool = pool
        self.engine = engine
        self.options = options
        self.logger = logger
    }

    package func run(now: Date = Date(), progress: Progress? = nil) async throws -> Summary {
        let started = Date()
        let queue = ScanQueue(pool: pool, options: options)
        try await Self.retrying { try await queue.prepare() }
        let total = try await Self.retrying { try await queue.pendingCount() }
        let recorder = JobRunRecorder(pool: pool, lease: runLease)
        let runID = try await startRun(recorder)
        var summary = Summary(runID: runID, provider: engine.provider.name)
        var logger = self.logger
        logger[metadataKey: "run"] = "\(runID.postgresValue)"
        if options.retryQuarantined { summary.quarantineReleased = try await Self.retrying { try await queue.releaseQuarantine() } }
        summary.abandonedRuns = (try? await Self.retrying { try await recorder.markAbandonedScans(except: runID) }) ?? 0
        let worker = Worker(runID: runID, now: now, queue: queue, state: ScanState(summary: summary), shutdown: NIOLockedValueBox(false),
                            progress: progress, total: total,
                            reader: ConversationReader(maxMessages: options.maxMessages, contextMessages: options.contextMessages, zones: options.zones),
                            logger: logger)
        // Counts every attempt and token of the extraction, failed conversations' included.
        let meter = LLMSpendMeter()
        let cancelled = await runWorkers(worker, meter: meter)
        if !cancelled { await settleHeld(worker) }
        summary = await totals(worker, meter: meter, released: summary.quarantineReleased)
        let interrupted = summary.stoppedEarly == Self.shutdownReason || cancelled
        if !interrupted { summary.proactive = await proactive?.afterScan(changedUsers: summary.changedUsers, now: now) }
        summary.seconds = Date().timeIntervalSince(started)
        summary.cost = RunCost.estimate(summary.usage, engine: engine, features: features)
        summary.mode = engine.mode.rawValue
        summary.night = NightCost(extractionUSD: summary.cost?.usd, assistantUSD: summary.proactive.map { $0.costUSD })
        let outcome = Self.outcome(summary)
        summary.status = outcome.status
        summary.runRecordError = await closeRun(runID, outcome, recorder: recorder, logger: logger)
        Self.logFinished(summary, status: outcome.status, logger: logger)
        return summary
    }

    /// Opens the run's `job_runs` row with the options and prompts it runs with; returns its id.
    private func startRun(_ recorder: JobRunRecorder) async throws -> UUID {
        let runOptions: JSONValue = [
            "concurrency": .integer(Int64(options.concurrency)),
            "shard": .string("\(options.shardIndex)/\(options.shardCount)"),
            "features": .array(features.map { .string($0.rawValue) }),
            "owner": .string(options.owner), "lease_seconds": .integer(Int64(options.lease.wholeSeconds)),
            "combined": .bool(engine.mode == .combined), "request_mode": .string(engine.mode.rawValue),
        ]
        let provider = engine.provider.name
        let prompts = engine.fingerprints(features) + (proactive?.assistant?.promptFingerprint.map { [$0] } ?? [])
        return try await Self.retrying { try await recorder.start(
            .scan, provider: provider, model: nil, options: runOptions, promptSet: engine.prompts.fingerprint, prompts: prompts) }
    }

    /// Runs the workers until the work runs out, a graceful shutdown, or cancellation, with `meter` counting every model
    /// call; returns whether the run was cancelled.
    private func runWorkers(_ worker: Worker, meter: LLMSpendMeter) async -> Bool {
        let (state, shutdown) = (worker.state, worker.shutdown)
        // A graceful shutdown (SIGTERM/SIGINT through a ServiceGroup) stops the claiming; the task group then waits for
        // the conversations in flight, so nothing of this run commits after `run()` returns.
        await LLMSpendMeter.$current.withValue(meter) {
            await withGracefulShutdownHandler {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<max(1, options.concurrency) {
                        group.addTask { await work(worker) }
                    }
                }
            } onGracefulShutdown: {
                shutdown.withLockedValue { $0 = true }
                Task { await state.stop(Self.shutdownReason) }
            }
        }
        if shutdown.withLockedValue({ $0 }) { await state.stop(Self.shutdownReason) }
        let cancelled = Task.isCancelled
        if cancelled { await state.stop(Self.cancelledReason) }
        // After a cancellation a claim may have landed that no worker processed: release it so the next scan need not
        // wait for it to expire. (Otherwise every claim is committed, failed, or deliberately left to expire.)
        let (queue, runID) = (worker.queue, worker.runID)
        if cancelled { _ = try? await Self.uncancelled { try await queue.releaseAll(runID: runID) } }
        return cancelled
    }

    /// The workers' totals once they have stopped, completed by what the queue and the meter know: commits that landed
    /// on a dead connection, the quarantine, every model call's tokens, leases held elsewhere.
    private func totals(_ worker: Worker, meter: LLMSpendMeter, released: Int) async -> Summary {
        let (queue, runID, state) = (worker.queue, worker.runID, worker.state)
        // A conversation failed on a dead connection may have committed all the same (the COMMIT reached the
        // server, its answer and the check after it did not): asked once more, patiently (up to 8 attempts over about
        // 4 s), since the run's record is only true if this answer arrives and a storm of killed sessions may not be
        // over yet.
        let suspects = await state.failedOnDeadConnection
        if let landed = try? await Self.uncancelled({ try await Self.retrying(with: Self.patientConnectionRetry) { try await queue.committed(among: suspects, runID: runID) } }) {
            await state.recount(committed: landed)
        }
        var summary = await state.finish()
        summary.quarantineReleased = released
        summary.quarantinedTotal = (try? await Self.uncancelled { try await Self.retrying { try await queue.quarantinedCount() } }) ?? 0
        // The run's one count of what it spent: every attempt the client made, retried and failed ones included.
        summary.requests = meter.attempts
        summary.usage = TokenUsage(meter.usage)
        if summary.stoppedEarly == nil,
           let leased = try? await Self.retrying({ try await queue.leasedElsewhere() }) {
            (summary.leasedElsewhere, summary.leasedUntil) = (leased.count, leased.until)
        }
        if summary.stoppedEarly != nil,
           let unreached = try? await Self.uncancelled({ try await Self.retrying { try await queue.unreached(runID: runID, limit: RunFailure.recordedLimit) } }) {
            (summary.unreached, summary.unreachedConversations) = (unreached.count, unreached.first)
        }
        return summary
    }

    /// What the run's `job_runs` row records of `summary`.
    private static func outcome(_ summary: Summary) -> JobRunRecorder.Outcome {
        let passFailed = summary.proactive?.failed == true
        let clean = summary.failed == 0 && summary.stoppedEarly == nil && !passFailed
        let didSomething = summary.conversations > 0 || (summary.proactive?.usersPassed ?? 0) > 0
        // An outage fails the run whatever got done before it: the night is retried, not counted good.
        let status: JobRunRecorder.Status = summary.outage != nil ? .failed : clean ? .succeeded : (didSomething ? .partial : .failed)
        var outcome = JobRunRecorder.Outcome(status: status)
        outcome.conversationsProcessed = summary.conversations
        outcome.conversationsFailed = summary.failed
        outcome.itemCounts = summary.items
        outcome.grounding = summary.grounding
        outcome.requests = summary.requests
        outcome.usage = summary.usage
        outcome.estimatedCostUSD = summary.cost?.usd
        var details: JSONObject = [
            "messages_over_cap": .integer(Int64(summary.messagesOverCap)),
            "future_dated_messages": .integer(Int64(summary.futureDatedMessages)),
            "conversations_backlogged": .integer(Int64(summary.backlogged)),
            "conversations_over_cap": .array(summary.overCap.map {
                ["conversation_id": .string($0.conversationID.uuidString.lowercased()), "skipped_messages": .integer(Int64($0.skippedMessages))]
            }),
            "quarantined": .array(summary.quarantined.map { .string($0.conversationID.uuidString.lowercased()) }),
            "quarantined_total": .integer(Int64(summary.quarantinedTotal)),
        ]
        if let outage = summary.outage {
            details["outage"] = .string(outage)
            details["deferred"] = .integer(Int64(summary.deferred))
        }
        if summary.deferred > 0 || summary.stoppedEarly != nil {
            details["deferred"] = .integer(Int64(summary.deferred))
            details["deferred_conversations"] = .array(summary.deferredConversations.map { .string($0.uuidString.lowercased()) })
        }
        if let unreached = summary.unreached {
            details["unreached"] = .integer(Int64(unreached))
            details["unreached_conversations"] = .array(summary.unreachedConversations.map { .string($0.uuidString.lowercased()) })
        }
        if !summary.reasked.isEmpty {
            let reasked = summary.reasked.map { RunFailure(conversationID: $0.conversationID, feature: $0.feature, error: $0.error, answers: $0.answers) }
            details["reasked"] = (try? JSONValue.encode(reasked)) ?? .array([])
        }
        ExtractionStore.details(closed: summary.closed, refused: summary.refused, into: &details)
        outcome.details = .object(details)
        outcome.failures = summary.failures.map {
            RunFailure(conversationID: $0.conversationID, feature: $0.feature, error: $0.error, answers: $0.answers)
        }
        outcome.error = summary.outage ?? summary.stoppedEarly
            ?? summary.failures.first.map { "\(summary.failed) conversation(s) failed; first: \($0.error)" }
            ?? (passFailed ? summary.proactive.map(Self.passFailure) : nil)
        return outcome
    }

    /// What went wrong in a failed proactive pass, in one line: how many users, and the first error.
    static func passFailure(_ pass: ProactivePass.Summary) -> String {
        let users = pass.usersFailed + pass.narrationFailed
        return "the proactive pass failed for \(users) user(s)" + (pass.errors.first.map { "; first: \($0)" } ?? "")
    }

    /// Closes the run's `job_runs` row; returns why it could not be closed, nil when it was.
    private func closeRun(_ runID: UUID, _ outcome: JobRunRecorder.Outcome, recorder: JobRunRecorder, logger: Logger) async -> String? {
        do {
            try await recorder.finish(runID, outcome)
            return nil
        } catch {
            // The database is gone: what committed stays committed, the summary is still printed, and the next run
            // marks this row abandoned with the conversations it committed.
            logger.error("could not close the run's job_runs row", metadata: ["run": "\(runID.postgresValue)", "error": "\(error)"])
            return "the run's job_runs row could not be closed: \(error)"
        }
    }

    /// The run's final figures as fields of one `info` line (what `job_runs` records), for log collectors: the
    /// nightly CronJob's last word.
    static func logFinished(_ summary: Summary, status: JobRunRecorder.Status, logger: Logger) {
        var fields: Logger.Metadata = [
            "status": "\(status.rawValue)", "conversations": "\(summary.conversations)", "failed": "\(summary.failed)",
            "items": "\(summary.items.values.reduce(0, +))", "inserted": "\(summary.rowsInserted)", "updated": "\(summary.rowsUpdated)",
            "requests": "\(summary.requests)", "prompt_tokens": "\(summary.usage.promptTokens)",
            "completion_tokens": "\(summary.usage.completionTokens)", "seconds": "\(String(format: "%.1f", summary.seconds))",
        ]
        if let usd = summary.cost?.usd { fields["cost_usd"] = "\(String(format: "%.4f", usd))" }
        if let reason = summary.stoppedEarly { fields["stopped_early"] = "\(reason)" }
        logger.info("scan finished", metadata: fields)
    }


    /// `stoppedEarly` after a graceful shutdown (SIGTERM or SIGINT).
    package static let shutdownReason = "a shutdown was requested (SIGTERM or SIGINT); conversations in flight were finished"
    /// `stoppedEarly` after the run's task was cancelled.
    package static let cancelledReason = "the scan was cancelled; conversations in flight were rolled back and released"

    /// Runs `body` in a task of its own, so that the bookkeeping of a cancelled run (releasing leases, marking the run)
    /// still reaches the database; awaited, so it is over before `run()` returns.
    static func uncancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }

    /// How a queue statement is retried after its connection died: 3 attempts, 0.2 s then 0.3 s apart (each wait half
    /// as long again as the one before, at most 0.8 s).
    static let connectionRetry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), multiplier: 1.5,
                                             maxDelay: .milliseconds(800))

    /// `connectionRetry` with 8 attempts (about 4 s of waits), for the answer a run's record depends on.
    static let patientConnectionRetry = {
        var policy = connectionRetry
        policy.maxAttempts = 8
        return policy
    }()

    /// Runs `body` again as `policy` says when the connection it used died: the pool drops a broken connection, so the
    /// next attempt runs on a fresh one. Other errors are thrown at once.
    static func retrying<T: Sendable>(with policy: RetryPolicy = connectionRetry, _ body: () async throws -> T) async throws -> T {
        try await policy.run(retryingWhen: { ($0 as? PostgresError)?.isConnectionFailure ?? false }) { _ in try await body() }
    }
}

/// What the scan's workers share: how many claims are taken or in flight, and the running totals.
actor ScanState {
    var summary: ScanService.Summary
    /// Claims taken plus claims in flight: reserved before a claim's query is sent, so `--limit` is exact however
    /// many workers ask at once.
    private var reserved = 0
    private var stopped = false
    private var changedUsers: Set<UUID> = []
    /// The furthest place in the claim order this run claimed: claims search past it first (see `ScanQueue.claimNext`).
    private var cursor: ScanQueue.Position?
    /// Set when a search from the start found nothing: the queue is empty for this run, so the other workers stop
    /// without each scanning the whole table twice more.
    /// A conversation another scanner releases after this point waits for the next run.
    private var exhausted = false
    /// Conversations counted as failed on a dead connection: their COMMIT may have reached the server although
    /// neither its answer nor the check after it got through (see `recount(committed:)`).
    var failedOnDeadConnection: [UUID] = []
    /// Conversations whose requests failed while the model server answered nothing, settled when the run ends.
    var held: [ScanService.HeldFailure] = []

    init(summary: ScanService.Summary) { self.summary = summary }

    /// The next claim: first past `cursor`, then, when nothing is left there, from the start once more (a
    /// conversation skipped while another scanner held it, or whose lease has since expired).
    func nextClaim(_ claim: @Sendable (_ after: ScanQueue.Position?) async throws -> ScanQueue.Claim?, limit: Int?) async throws -> ScanQueue.Claim? {
        if stopped || exhausted { return nil }
        if let limit, reserved >= limit { return nil }
        reserved += 1
        do {
            let after = cursor
            var found = try await claim(after)
            if found == nil, after != nil, !exhausted { found = try await claim(nil) }
            guard let next = found else {
                exhausted = true
                reserved -= 1
                return nil
            }
            if cursor.map({ $0.precedes(next.position) }) ?? true { cursor = next.position }
            return next
        } catch {
            reserved -= 1
            throw error
        }
    }

    /// Postgres's `uuid` order: byte by byte.
    static func precedes(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { x in withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) } }
    }

    func stop(_ reason: String) {
        stopped = true
        if summary.stoppedEarly == nil { summary.stoppedEarly = reason }
    }

    /// Stops claiming because of an outage, which the run's record names.
    func stop(outage: String) {
        if summary.outage == nil { summary.outage = outage }
        stop("stopped asking after an outage: \(outage)")
    }

    /// Whether an outage stopped the run: conversations not yet sent are given back unasked.
    var outageStopped: Bool { summary.outage != nil }

    func record(success id: UUID, input: ConversationInput, run: ExtractionRun, written: ExtractionStore.WriteSummary,
                newMessages: Int, skipped: Int, leftOut: Int, futureDated: Int = 0, backlog: Bool = false, features: [ExtractionFeature]) {
        summary.conversations += 1
        summary.futureDatedMessages += futureDated
        if backlog { summary.backlogged += 1 }
        if leftOut > 0 {
            summary.messagesOverCap += leftOut
            if summary.overCap.count < 50 { summary.overCap.append(.init(conversationID: id, skippedMessages: leftOut)) }
        }
        summary.newMessages += newMessages
        summary.skippedMessages += skipped
        for feature in features { summary.items[feature.rawValue, default: 0] += run.extraction.count(feature) }
        for (feature, tally) in run.extraction.grounding { summary.grounding[feature.rawValue, default: GroundingTally()] += tally }
        let inserted = written.inserted.values.reduce(0, +), updated = written.updated.values.reduce(0, +)
        summary.rowsInserted += inserted
        summary.rowsUpdated += updated
        summary.remindersCreated += written.remindersCreated
        summary.closed.merge(written.closed, uniquingKeysWith: +)
        summary.refused.merge(written.refused, uniquingKeysWith: +)
        let found = features.reduce(0) { $0 + run.extraction.count($1) }
        if found > 0 { summary.conversationsWithFindings += 1 }
        if found > 0, summary.found.count < ScanReport.conversationsListed {
            let items = features.flatMap { feature in
                ExtractReport.fields(feature, run.extraction).map {
                    ScanService.FoundItem(feature: feature.rawValue, fields: $0.fields, summary: "\(feature.rawValue): \($0.line)")
                }
            }
            let listed = Array(items.prefix(ScanReport.itemsPerConversation))
            if !items.isEmpty {
                summary.found.append(.init(conversationID: id, conversation: input.name, items: listed, more: items.count - listed.count))
            }
        }
        if inserted + updated > 0 {
            for participant in input.participants { if let id = UUID(uuidString: participant.id) { changedUsers.insert(id) } }
        }
    }

    /// The totals with the changed users sorted, once at the end rather than on every record.
    func finish() -> ScanService.Summary {
        summary.changedUsers = changedUsers.sorted { $0.uuidString < $1.uuidString }
        return summary
    }

    func record(quarantined id: UUID, error: String) {
        if summary.quarantined.count < 50 { summary.quarantined.append(.init(conversationID: id, error: error)) }
    }

    func record(reasked id: UUID, answers: [ModelAnswer]) {
        guard summary.reasked.count < RunFailure.recordedLimit else { return }
        summary.reasked.append(.init(conversationID: id, error: "re-asked, then answered validly", feature: answers.first?.feature, answers: answers))
    }

    func record(failure id: UUID, error: String, feature: String? = nil, answers: [ModelAnswer] = [], unrecorded: String? = nil,
                deadConnection: Bool = false) {
        summary.failed += 1
        if deadConnection { failedOnDeadConnection.append(id) }
        if summary.failures.count < 50 {
            summary.failures.append(.init(conversationID: id, error: error, feature: feature, answers: answers.isEmpty ? nil : answers))
        }
        if let unrecorded, summary.unrecordedFailures.count < 50 {
            summary.unrecordedFailures.append(.init(conversationID: id, error: unrecorded))
        }
    }
}
