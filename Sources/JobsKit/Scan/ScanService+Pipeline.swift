import AgentRuntime
import Extractors
import Foundation
import Logging
import Postgres
import NIOConcurrencyHelpers

/// One scan worker's conversations, in three overlapping stages: while one conversation waits on the model, the one
/// answered before it is written and the next is claimed and read. A worker's model slot so never waits on the
/// database.
extension ScanService {
    /// What every worker of one run shares.
    struct Worker: Sendable {
        let runID: UUID
        let now: Date
        let queue: ScanQueue
        let state: ScanState
        /// Set once, from the synchronous graceful-shutdown handler, and read before each claim: no claim starts after
        /// the handler has returned (an actor hop would leave a window in which one still could).
        let shutdown: NIOLockedValueBox<Bool>
        let progress: Progress?
        let total: Int
        /// Made once per run, with the run's time-zone policy.
        let reader: ConversationReader
        /// The scan's logger with the run id.
        let logger: Logger

        /// The run's logger with the conversation id, for every line about that conversation.
        func logger(for conversation: UUID) -> Logger {
            var logger = self.logger
            logger[metadataKey: "conversation"] = "\(conversation.postgresValue)"
            return logger
        }
    }

    /// A claimed conversation, read and filtered, waiting for the model.
    struct Loaded: Sendable {
        let claim: ScanQueue.Claim
        /// As read, with every new message.
        let conversation: ConversationInput
        /// What the model is sent: `conversation` after the pre-filter.
        let input: ConversationInput
        let skipped: Int
        /// Older messages left out by the read cap (`ConversationReader.maxMessages`) on a first scan: the watermark
        /// moves past them unread.
        let leftOut: Int
        /// When it was claimed, for the per-conversation log line.
        let started: ContinuousClock.Instant
        /// What the read found besides the messages: future-dated ones, where the watermark moves, backlog gaps.
        let read: ConversationReader.Read

        var hasNew: Bool { input.firstNewIndex < input.messages.count }
        var newMessages: ArraySlice<InputMessage> { conversation.messages[conversation.firstNewIndex...] }
    }

    /// A conversation the model has answered, waiting to be written.
    struct Answered: Sendable {
        let loaded: Loaded
        let run: ExtractionRun
    }

    /// Runs until the work runs out, claiming stops, or the task is cancelled. At most three conversations are held
    /// at once: one being written, one with the model, one read ahead. A read-ahead conversation not yet sent to the
    /// model when a shutdown or cancellation comes is given back untouched (the next scan takes it at once).
    func work(_ worker: Worker) async {
        var waiting = await claimAndLoad(worker)
        var answered: Answered?
        while waiting != nil || answered != nil {
            if Task.isCancelled || worker.shutdown.withLockedValue({ $0 }), let unstarted = waiting {
                // After a cancellation it counts like a conversation cancelled with the model: claimed and given back.
                await giveBack(unstarted.claim.conversationID, interrupted: Task.isCancelled, worker)
                waiting = nil
            }
            let current = waiting
            let previous = answered
            async let written: Void = commit(previous, worker)
            async let readAhead = current == nil ? nil : claimAndLoad(worker)
            let extracted = await extract(current, worker)
            await written
            answered = extracted
            waiting = await readAhead
        }
    }

    /// Claims conversations until one loads (one that fails to load is settled and passed over); nil when the work
    /// has run out, claiming failed for good, a shutdown was requested, or the task was cancelled.
    func claimAndLoad(_ worker: Worker) async -> Loaded? {
        while !Task.isCancelled, !worker.shutdown.withLockedValue({ $0 }) {
            let claim: ScanQueue.Claim
            do {
                let (queue, runID, hook) = (worker.queue, worker.runID, beforeClaim)
                guard let next = try await worker.state.nextClaim({ after in
                    await hook?()
                    return try await Self.retrying { try await queue.claimNext(runID: runID, after: after) }
                }, limit: options.limit) else { return nil }
                claim = next
            } catch where Task.isCancelled {
                // Cancelled while claiming: the run's final sweep releases a claim that may have landed.
                return nil
            } catch {
                // The database stayed unreachable through the retries: stop claiming, keep what is done.
                worker.logger.error("claiming the next conversation failed", metadata: ["error": "\(error)"])
                if (error as? PostgresError)?.isConnectionFailure == true {
                    await worker.state.stop(outage: "the database is unavailable: claiming the next conversation failed: \(error)")
                } else {
                    await worker.state.stop("claiming the next conversation failed: \(error)")
                }
                return nil
            }
            if let loaded = await load(claim, worker) { return loaded }
        }
        return nil
    }

    /// The conversation as the model will see it; nil (settled) when reading failed or it no longer exists.
    func load(_ claim: ScanQueue.Claim, _ worker: Worker) async -> Loaded? {
        let reader = worker.reader
        let started = ContinuousClock.now
        do {
            guard let (read, leftOut) = try await pool.withConnection({ db -> (ConversationReader.Read, Int)? in
                guard let read = try await reader.read(claim.conversationID, since: claim.watermark, backlog: claim.backlog,
                                                       newestFirst: true, now: worker.now, on: db)
                else { return nil }
                let conversation = read.input
                guard claim.watermark == nil, conversation.messages.count >= reader.maxMessages, let oldest = conversation.messages.first
                else { return (read, 0) }
                return (read, try await reader.count(olderThan: oldest, in: claim.conversationID, on: db))
            }) else { return nil }
            var conversation = read.input
            // The items of earlier nights: the request lists the open ones, the answer speaks of them by ref.
            conversation.state = try await pool.withConnection { db in
                try await TrackedItemStore().load(claim.conversationID, now: worker.now, timeZone: conversation.timeZone,
                                                  rekeyAdopted: false, on: db)
            }
            if !read.futureDated.isEmpty {
                worker.logger(for: claim.conversationID).warning(
                    "messages dated in the future are read as of now: they cannot hold back the later ones",
                    metadata: ["messages": "\(read.futureDated.count)"])
            }
            if leftOut > 0 {
                worker.logger(for: claim.conversationID).warning(
                    "conversation has more messages than the read cap: the oldest are skipped",
                    metadata: ["read": "\(conversation.messages.count)", "skipped": "\(leftOut)", "cap": "\(reader.maxMessages)"])
            }
            let (input, skipped) = options.preFilter ? PreFilter().filter(conversation) : (conversation, 0)
            return Loaded(claim: claim, conversation: conversation, input: input, skipped: skipped, leftOut: leftOut, started: started,
                          read: read)
        } catch {
            await settle(claim, error: error, worker)
            return nil
        }
    }

    /// The model's answer for `loaded` (none asked when the pre-filter kept no new message); nil (settled) on failure.
    func extract(_ loaded: Loaded?, _ worker: Worker) async -> Answered? {
        guard let loaded else { return nil }
        if await worker.state.outageStopped {
            // Read ahead before the outage stopped the run: given back unasked.
            await giveBack(loaded.claim.conversationID, interrupted: false, worker)
            await worker.state.record(deferred: loaded.claim.conversationID)
            return nil
        }
        // What the model said in answers that failed or were re-asked, kept with the failure if the conversation fails.
        let answers = ModelAnswerLog()
        do {
            let run = loaded.hasNew
                ? try await ModelAnswerLog.$current.withValue(answers) {
                    try await engine.extract(loaded.input, features: features, logger: worker.logger(for: loaded.claim.conversationID))
                }
                : ExtractionRun()
            // Answers re-asked that then passed: kept in the run's record too (the first of them).
            if !answers.answers.isEmpty {
                await worker.state.record(reasked: loaded.claim.conversationID, answers: answers.answers.map(\.redacted))
            }
            return Answered(loaded: loaded, run: run)
        } catch {
            await settle(loaded.claim, error: error, answers: answers.answers, worker)
            return nil
        }
    }

    /// Writes the rows and moves the watermark in one transaction, then counts the conversation.
    func commit(_ answered: Answered?, _ worker: Worker) async {
        guard let answered else { return }
        let (loaded, run, claim) = (answered.loaded, answered.run, answered.loaded.claim)
        let features = self.features
        let lockTimeout = options.lockTimeout?.postgresMilliseconds
        let (runID, now, owner) = (worker.runID, worker.now, options.owner)
        do {
            let written: ExtractionStore.WriteSummary
            do {
                written = try await pool.transaction { db in
                    // A row lock held elsewhere fails this conversation after the bound (the connection's lock_timeout
                    // unless the options set one) instead of stalling the scan.
                    if let lockTimeout { try await db.query("SELECT set_config('lock_timeout', $1, true)", [lockTimeout]) }
                    // A night with only deletions still reconciles: items resting only on deleted messages close.
                    let written: ExtractionStore.WriteSummary
                    if loaded.hasNew || !loaded.input.deletedMessageIDs.isEmpty {
                        written = try await ExtractionStore(zones: options.zones, registry: engine.registry).write(
                            run.extraction, input: loaded.input, features: features,
                            provenance: .init(runID: runID, prompts: run.prompts), replace: false, now: now, on: db)
                    } else {
                        // Nothing to reconcile, but a member who left still keeps nothing (the write does it otherwise).
                        written = ExtractionStore.WriteSummary()
                        try await LeftMembers().close(in: claim.conversationID, now: now, on: db)
                    }
                    let read = loaded.read
                    try await ScanQueue.advance(claim.conversationID, to: read.newest, futureDated: read.futureDated, readAt: read.readAt,
                                                overflow: read.overflow, backlogRead: read.backlogRead, runID: runID, owner: owner, on: db)
                    return written
                }
            } catch let error as PostgresError where error.isConnectionFailure {
                // The connection died, perhaps after the COMMIT reached the server: if this run moved the watermark, the
                // conversation is done (its row counts are unknown, so they are not added) and must not count as failed.
                let queue = worker.queue
                guard (try? await Self.retrying({ try await queue.committed(claim.conversationID, runID: runID) })) == true else { throw error }
                written = ExtractionStore.WriteSummary()
            } catch let lost as ScanLeaseLost {
                // Rolled back; the conversation is someone else's now, so there is no failure to record against it.
                worker.logger(for: claim.conversationID).warning("lease lost", metadata: ["error": "\(lost)"])
                await worker.state.record(lostLease: claim.conversationID)
                return
            }
            await worker.state.record(success: claim.conversationID, input: loaded.conversation, run: run, written: written,
                                      newMessages: loaded.newMessages.count, skipped: loaded.skipped, leftOut: loaded.leftOut,
                                      futureDated: loaded.read.futureDated.count, backlog: loaded.read.overflow != nil,
                                      features: features)
            logScanned(loaded, run: run, written: written, worker)
            await reportProgress(worker)
        } catch {
            await settle(claim, error: error, worker)
        }
    }

    /// A conversation whose work threw. Cancelled: not a failure; unless its COMMIT reached the server before the
    /// cancellation did, nothing of it was written, so it is given back. Otherwise the failure is recorded and the
    /// claim released, so the next scan tries again.
    func settle(_ claim: ScanQueue.Claim, error: any Error, answers: [ModelAnswer] = [], _ worker: Worker) async {
        let (id, queue, runID) = (claim.conversationID, worker.queue, worker.runID)
        if Task.isCancelled {
            if (try? await Self.uncancelled { try await queue.committed(id, runID: runID) }) == true {
                await worker.state.record(committedUncounted: id)
            } else {
                worker.logger(for: id).notice("conversation interrupted")
                await giveBack(id, interrupted: true, worker)
            }
            return
        }
        if let outage = (error as? LLMError)?.outage {
            await deferForOutage(claim, outage, error, worker)
            return
        }
        if let model = error as? LLMError, model.isOutageClass, let breaker {
            await settleServerFailure(claim, model, breaker: breaker, worker)
            return
        }
        await recordFailure(claim, error: error, signature: FailureSignature.of(error), answers: answers, worker)
    }

    /// Records a conversation's failure (its history, its quarantine streak when `signature` is not nil) and releases
    /// its claim, so the next scan tries again.
    /// `answers`: what the model said in the answers that failed (kept with the failure, redacted).
    func recordFailure(_ claim: ScanQueue.Claim, error: any Error, signature: String?, answers: [ModelAnswer] = [], _ worker: Worker) async {
        let answers = answers.map(\.redacted)
        let (id, queue) = (claim.conversationID, worker.queue)
        let logger = worker.logger(for: id)
        logger.error("conversation failed", metadata: ["error": "\(error)"])
        var unrecorded: String?
        // After a lock timeout the lock is most likely still held, perhaps on this very watermark row: recording the
        // failure does not wait for it a second time. If it cannot be written, the lease dies with this run anyway
        // (a claim of a finished scan run is free, see `ScanQueue.claimNext`).
        let lockWait: Duration? = (error as? PostgresError)?.sqlState == .lockNotAvailable ? .milliseconds(200) : nil
        do {
            let quarantined = try await Self.retrying {
                try await queue.fail(id, error: "\(error)", signature: signature, answers: answers, lockWait: lockWait)
            }
            if quarantined {
                logger.error("conversation quarantined: it failed the same way on several scans in a row; `messageai-jobs quarantine show ID` says why, `quarantine release ID` tries it again",
                             metadata: ["scans": "\(options.quarantineAfter)", "error": "\(error)"])
                await worker.state.record(quarantined: id, error: "\(error)")
            }
        } catch let recordError {
            // Not even the failure could be written: its lease expires after the lease and a later scan retries it.
            logger.error("recording the failure failed", metadata: ["error": "\(recordError)"])
            unrecorded = "\(recordError)"
        }
        await worker.state.record(failure: id, error: "\(error)", feature: RunFailure.feature(of: error), answers: answers, unrecorded: unrecorded,
                                  deadConnection: (error as? PostgresError)?.isConnectionFailure == true)
        await reportProgress(worker)
    }

    /// A conversation the model server's open circuit breaker refused (or whose failures opened it): an outage, not
    /// its fault, so its claim is given back untouched (no failure, no history entry, its quarantine streak as it
    /// was) and the run stops asking. One conversation's requests failing with 5xx or below HTTP while the breaker
    /// stays closed are settled by `settleServerFailure`.
    private func deferForOutage(_ claim: ScanQueue.Claim, _ outage: CircuitBreaker.Outage, _ error: any Error, _ worker: Worker) async {
        let id = claim.conversationID
        await giveBack(id, interrupted: false, worker)
        worker.logger(for: id).warning("conversation deferred: the model server is unavailable", metadata: ["error": "\(error)"])
        await worker.state.stop(outage: outage.description)
        await worker.state.record(deferred: id)
        await reportProgress(worker)
    }

    /// Releases a claimed conversation untouched, so the next scan takes it at once (if that fails, its lease simply
    /// expires); `interrupted` counts it as cancelled work.
    func giveBack(_ id: UUID, interrupted: Bool, _ worker: Worker) async {
        let queue = worker.queue
        _ = try? await Self.uncancelled { try await queue.release(id) }
        if interrupted { await worker.state.record(interrupted: id) }
    }

    /// The `info` line every scanned conversation gets: what was read, found and written, the tokens and the time.
    private func logScanned(_ loaded: Loaded, run: ExtractionRun, written: ExtractionStore.WriteSummary, _ worker: Worker) {
        let logger = worker.logger(for: loaded.claim.conversationID)
        guard logger.logLevel <= .info else { return }
        let items = features.reduce(0) { $0 + run.extraction.count($1) }
        logger.info("conversation scanned", metadata: [
            "new_messages": "\(loaded.newMessages.count)", "prefiltered": "\(loaded.skipped)", "items": "\(items)",
            "inserted": "\(written.inserted.values.reduce(0, +))", "updated": "\(written.updated.values.reduce(0, +))",
            "requests": "\(run.requests)", "prompt_tokens": "\(run.usage.promptTokens)",
            "completion_tokens": "\(run.usage.completionTokens)",
            "ms": "\(Int((ContinuousClock.now - loaded.started) / .milliseconds(1)))",
        ])
        for refusal in written.refusals { logger.notice("answer part refused", metadata: ["refusal": "\(refusal)"]) }
    }

    func reportProgress(_ worker: Worker) async {
        guard let progress = worker.progress else { return }
        let snapshot = await worker.state.summary
        progress(snapshot.conversations + snapshot.failed, snapshot.failed, worker.total)
    }
}

