package import AgentRuntime
package import Foundation
import Logging
package import Postgres
package import Tools

/// The nightly proactive pass: for every selected user, findings computed by code (set-based, a batch of users
/// per handful of queries) and stored idempotently in `assistant_findings`; then, when an LLM is configured, one
/// bounded assistant run per user with open findings to rank and explain them. Without an LLM the findings keep
/// their template suggestions. Users are taken in batches locked by the transaction that writes their findings,
/// sharded like the scan's conversations; after a scan, the users whose rows it changed are taken whatever their shard.
package struct ProactivePass: Sendable {
    package struct Options: Sendable {
        package var proactive = ProactiveOptions()
        /// Users whose findings are computed and written together.
        package var batchSize = 200
        /// Assistant runs at once (LLM only).
        package var concurrency = 4
        package var shardIndex = 0
        package var shardCount = 1
        /// How long a claim on a user's assistant run lasts before another pass may take it over.
        package var lease: Duration = .seconds(600)
        package var owner = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):assist"
        /// Stop after this many users (nil: all).
        package var limit: Int?
        package init() {}
    }

    /// Which users a pass looks at. Users with something coming up are always added.
    package enum Selection: Sendable {
        /// These users (the scan's changed users).
        case users([UUID])
        /// Users whose rows changed since the pass last saw them.
        case changed
        /// Every user.
        case all
    }

    package struct Summary: Sendable, Codable {
        package var runID: UUID
        /// Candidate users before sharding and leases (nil: every user).
        package var usersConsidered: Int?
        package var usersPassed = 0
        package var usersFailed = 0
        package var findings: [String: Int] = [:]
        package var written = FindingStore.Written()
        package var narrated = 0
        package var narrationFailed = 0
        /// Users with open findings whose assistant run was skipped: their findings are the ones their last
        /// successful run started from, or another pass is running the model for them right now.
        package var narrationSkipped = 0
        package var dropped = 0
        package var remindersCreated = 0
        package var usage = TokenUsage()
        /// The narrations' tokens at list prices; nil when a model's price is unknown.
        package var costUSD: Double? = 0
        package var seconds = 0.0
        package var errors: [String] = []
        /// Each user the pass failed for and why (the first `RunFailure.recordedLimit`), for `runs show`.
        package var failures: [RunFailure] = []
        /// Open findings of the first users (a human summary, not a report).
        package var shown: [UserFindings] = []
        /// Users with at least one open finding, shown or not.
        package var usersWithFindings = 0

        /// The pass failed for some user: her findings, her assistant run, or the whole pass.
        package var failed: Bool { usersFailed + narrationFailed > 0 || !errors.isEmpty }
    }

    package struct UserFindings: Sendable, Codable {
        package var userID: UUID
        package var name: String
        package var findings: [OpenFinding]
    }

    package let pool: PostgresPool
    package let options: Options
    /// With an LLM: the assistant that narrates each user's findings. Nil: templates only.
    package let assistant: AssistService?
    /// Users whose findings are printed in `shown`.
    var showUsers = 5
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    let logger = Logger(label: "messageai.proactive")

    package init(pool: PostgresPool, options: Options = Options(), assistant: AssistService? = nil) {
        self.pool = pool
        self.options = options
        self.assistant = assistant
    }

    /// Runs the pass under its own `job_runs` row (kind `assist`).
    package func run(_ selection: Selection, now: Date = Date()) async throws -> Summary {
        let started = Date()
        let recorder = JobRunRecorder(pool: pool, lease: runLease)
        let runID = try await recorder.start(
            .assist, provider: assistant == nil ? "rules" : "openai", model: assistant?.model,
            options: ["mode": "proactive_pass", "shard": .string("\(options.shardIndex)/\(options.shardCount)")],
            promptSet: assistant?.prompts.fingerprint, prompts: assistant?.promptFingerprint.map { [$0] } ?? [])
        var summary = Summary(runID: runID)
        // Counts every model attempt and token of the pass, failed runs' included.
        let meter = LLMSpendMeter()
        recorder.track(runID, meter)
        do {
            try await LLMSpendMeter.$current.withValue(meter) {
                try await passUsers(selection, runID: runID, now: now, summary: &summary)
            }
        } catch {
            var outcome = JobRunRecorder.Outcome(status: .failed)
            outcome.requests = meter.attempts
            outcome.usage = TokenUsage(meter.usage)
            outcome.error = "\(error)"
            try? await recorder.finish(runID, outcome)
            throw error
        }
        summary.seconds = Date().timeIntervalSince(started)
        // The pass's one count of what it spent: every attempt the client made, failed runs' included.
        summary.usage = TokenUsage(meter.usage)
        var outcome = JobRunRecorder.Outcome(status: summary.usersFailed + summary.narrationFailed == 0 ? .succeeded
                                             : (summary.usersPassed > 0 ? .partial : .failed))
        outcome.requests = meter.attempts
        outcome.usage = summary.usage
        outcome.estimatedCostUSD = summary.costUSD
        outcome.itemCounts = summary.findings.merging([
            "users": summary.usersPassed, "users_failed": summary.usersFailed, "findings_new": summary.written.inserted,
            "findings_resolved": summary.written.resolved, "narrated": summary.narrated, "dropped": summary.dropped,
            "narration_skipped": summary.narrationSkipped,
        ]) { $1 }
        outcome.error = summary.errors.first
        // Each failed user by id, then errors that name none (a batch whose commit failed).
        outcome.failures = summary.failures + summary.errors.filter { $0.hasPrefix("a batch: ") }.map { RunFailure(error: $0) }
        try await recorder.finish(runID, outcome)
        return summary
    }

    /// The pass after a scan's extraction, for the changed users plus users with something coming up. Never
    /// throws: the extraction is committed and recorded either way; a failed pass is in `errors` and its own run.
    func afterScan(changedUsers: [UUID], now: Date) async -> Summary {
        do {
            return try await run(.users(changedUsers), now: now)
        } catch {
            logger.error("proactive pass failed", metadata: ["error": "\(error)"])
            var summary = Summary(runID: UUID())
            summary.errors = ["the proactive pass failed: \(error)"]
            return summary
        }
    }

    private func passUsers(_ selection: Selection, runID: UUID, now: Date, summary: inout Summary) async throws {
        let queue = ProactiveQueue(pool: pool, options: options)
        // The users whose rows this process changed are its own whatever their shard: another shard's pass may have
        // looked at them before these rows were written. Users with something coming up are split by shard.
        let scope: ProactiveQueue.Scope
        switch selection {
        case .all: scope = .init(own: [], sharded: nil)
        case .users(let ids): scope = .init(own: ids, sharded: try await queue.upcomingUsers(now: now))
        case .changed: scope = .init(own: [], sharded: Array(Set(try await queue.changedUsers() + (try await queue.upcomingUsers(now: now)))))
        }
        summary.usersConsidered = scope.sharded.map { Set($0 + scope.own).count }
        if let sharded = scope.sharded, sharded.isEmpty, scope.own.isEmpty { return }
        try await queue.prepare(scope.sharded.map { $0 + scope.own })
        let since = try await queue.databaseNow()
        var attempted: [UUID] = []
        // First the users no other pass holds; then a round that waits for the ones another pass was computing and
        // takes those it began before `since` (its findings may lack rows this process wrote).
        for wait in [false, true] {
            while true {
                let room = min(options.batchSize, options.limit.map { $0 - attempted.count } ?? .max)
                guard room > 0 else { return }
                let batch: [UUID]
                do {
                    batch = try await compute(scope, since: since, skipping: attempted, limit: room, wait: wait, runID: runID,
                                              now: now, summary: &summary)
                } catch let failed as BatchFailure {
                    logger.error("proactive batch failed", metadata: ["users": "\(failed.users.count)", "error": "\(failed.error)"])
                    summary.usersFailed += failed.users.count
                    if summary.errors.count < 20 { summary.errors.append("\(failed.users.count) users: \(failed.error)") }
                    summary.fail(failed.users, "their findings could not be computed or written: \(failed.error)")
                    // Nothing claimed (the claim itself failed, e.g. a lock wait ran out): this round ends.
                    guard !failed.users.isEmpty else { break }
                    attempted += failed.users
                    try? await queue.fail(failed.users, error: "\(failed.error)")
                    continue
                } catch {
                    // The commit itself failed (the connection died): which users it held is unknown; this round ends.
                    logger.error("proactive batch failed", metadata: ["error": "\(error)"])
                    if summary.errors.count < 20 { summary.errors.append("a batch: \(error)") }
                    break
                }
                if batch.isEmpty { break }
                attempted += batch
                do {
                    try await narrateBatch(batch, runID: runID, now: now, summary: &summary)
                } catch {
                    logger.error("proactive batch failed", metadata: ["users": "\(batch.count)", "error": "\(error)"])
                    summary.usersFailed += batch.count
                    if summary.errors.count < 20 { summary.errors.append("\(batch.count) users: \(error)") }
                    summary.fail(batch, "their assistant runs could not be made: \(error)")
                }
            }
        }
    }

    /// A batch whose findings could not be computed or written (rolled back), with the users it had claimed.
    private struct BatchFailure: Error {
        let users: [UUID]
        let error: any Error
    }

    /// One batch: claim, compute, write and mark done in one transaction (a pass killed mid-batch holds nothing).
    /// Returns the batch; empty when no user is left.
    private func compute(_ scope: ProactiveQueue.Scope, since: Date, skipping attempted: [UUID], limit: Int, wait: Bool,
                         runID: UUID, now: Date, summary: inout Summary) async throws -> [UUID] {
        let (proactive, shardIndex, shardCount) = (options.proactive, options.shardIndex, options.shardCount)
        let (batch, written) = try await pool.transaction { db -> ([UUID], FindingStore.Written) in
            let batch: [UUID]
            do {
                batch = try await ProactiveQueue.lock(scope, since: since, skipping: attempted, limit: limit, wait: wait,
                                                      shardIndex: shardIndex, shardCount: shardCount, on: db)
            } catch {
                throw BatchFailure(users: [], error: error)
            }
            guard !batch.isEmpty else { return ([], FindingStore.Written()) }
            do {
                let found = try await ProactiveEngine(options: proactive).findings(for: batch, now: now, on: db)
                let written = try await FindingStore().write(found, users: batch, runID: runID, now: now, on: db)
                try await ProactiveQueue.finish(batch, runID: runID, on: db)
                return (batch, written)
            } catch {
                throw BatchFailure(users: batch, error: error)
            }
        }
        guard !batch.isEmpty else { return [] }
        summary.usersPassed += batch.count
        summary.written.inserted += written.inserted
        summary.written.kept += written.kept
        summary.written.resolved += written.resolved
        return batch
    }

    /// After a batch's findings committed: the assistant runs (LLM) and what the summary shows.
    private func narrateBatch(_ batch: [UUID], runID: UUID, now: Date, summary: inout Summary) async throws {
        let proactive = options.proactive
        var open = try await pool.withConnection { try await OpenFinding.load(batch, on: $0) }
        for list in open.values { for finding in list { summary.findings[finding.kind, default: 0] += 1 } }
        let people = try await AssistService.people(Array(open.keys), zones: proactive.zones, pool: pool)
        if let assistant {
            let queue = ProactiveQueue(pool: pool, options: options)
            let withFindings = open.filter { !$0.value.isEmpty }
            let claimed = try await queue.claimNarrations(Array(withFindings.keys), runID: runID)
            summary.narrationSkipped += withFindings.count - claimed.count
            let results = await narrate(withFindings.filter { claimed[$0.key] != nil }, people: people, assistant: assistant,
                                        runID: runID, now: now)
            var succeeded: [UUID] = [], released = Array(claimed.keys.filter { people[$0] == nil })
            for result in results {
                switch result {
                case .success(let s) where s.findings != nil: succeeded.append(s.userID)
                case .success(let s): released.append(s.userID)
                case .failure(let error): released.append(error.user)
                }
            }
            try await queue.finishNarrations(succeeded: succeeded, released: released, runID: runID)
            for result in results {
                switch result {
                case .success(let s):
                    summary.narrated += s.findings == nil ? 0 : 1
                    summary.narrationFailed += s.findings == nil ? 1 : 0
                    if s.findings == nil {
                        summary.fail([s.userID], "the assistant gave no valid answer (stop reason \(s.stopReason), assistant run \(s.runID.postgresValue))")
                    }
                    summary.dropped += s.dropped.count
                    summary.remindersCreated += s.remindersCreated
                    summary.costUSD = s.cost.usd.flatMap { cost in summary.costUSD.map { $0 + cost } }
                    open[s.userID] = s.codeFindings
                case .failure(let error):
                    summary.narrationFailed += 1
                    if summary.errors.count < 20 { summary.errors.append("\(error)") }
                    summary.fail([error.user], "the assistant run failed: \(error.error)")
                }
            }
        }
        summary.usersWithFindings += open.values.filter { !$0.isEmpty }.count
        for user in open.keys.sorted(by: { (people[$0]?.name ?? "", $0.uuidString) < (people[$1]?.name ?? "", $1.uuidString) })
        where summary.shown.count < showUsers {
            summary.shown.append(UserFindings(userID: user, name: people[user]?.name ?? user.postgresValue, findings: open[user] ?? []))
        }
    }

    private struct NarrationError: Error, CustomStringConvertible {
        let user: UUID
        let error: String
        var description: String { "assistant for user \(user.postgresValue): \(error)" }
    }

    /// One bounded run per user with open findings, at most `concurrency` at once.
    private func narrate(_ open: [UUID: [OpenFinding]], people: [UUID: AssistService.Person], assistant: AssistService,
                         runID: UUID, now: Date) async -> [Result<AssistService.Summary, NarrationError>] {
        let work = open.filter { !$0.value.isEmpty }.keys.sorted { $0.uuidString < $1.uuidString }.compactMap { people[$0] }
        var results: [Result<AssistService.Summary, NarrationError>] = []
        await withTaskGroup(of: Result<AssistService.Summary, NarrationError>.self) { group in
            var next = 0
            func add() {
                guard next < work.count else { return }
                let person = work[next]
                next += 1
                group.addTask {
                    do {
                        return .success(try await assistant.narrate(person, findings: open[person.id] ?? [], runID: runID, now: now))
                    } catch {
                        return .failure(NarrationError(user: person.id, error: "\(error)"))
                    }
                }
            }
            for _ in 0..<max(1, options.concurrency) { add() }
            for await result in group {
                results.append(result)
                add()
            }
        }
        return results
    }
}

extension ProactivePass.Summary {
    /// Records that the pass failed for `users` (the first `RunFailure.recordedLimit` are kept).
    mutating func fail(_ users: [UUID], _ error: String) {
        for user in users where failures.count < RunFailure.recordedLimit { failures.append(RunFailure(userID: user, error: error)) }
    }
}
