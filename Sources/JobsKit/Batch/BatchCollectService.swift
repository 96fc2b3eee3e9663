package import AgentRuntime
package import Core
package import Extractors
package import Foundation
import Logging
package import Postgres

/// The second half of a batch scan: poll submitted batches and, once one is done, validate and decode each
/// conversation's answers exactly as the synchronous engine does, then write its rows and advance its watermark in one
/// transaction. Safe to repeat: a conversation is applied at most once, and a failed one (an error line, an invalid
/// answer, a batch that expired) is released for the next scan with its watermark where it was.
package struct BatchCollectService: Sendable {
    package struct Summary: Sendable, Codable {
        package var batchID: UUID
        package var remoteBatchID: String?
        /// What OpenAI says (in_progress, completed, expired...).
        package var remoteStatus: String
        /// Our status afterwards: submitted while waiting, then collected / expired / failed / cancelled.
        package var status: BatchState
        package var requestCounts: BatchRequestCounts?
        package var applied = 0
        package var failed = 0
        package var failures: [ScanService.Failure] = []
        package var items: [String: Int] = [:]
        package var notes: [String] = []
        package var rowsInserted = 0
        package var rowsUpdated = 0
        package var remindersCreated = 0
        /// Items closed per feature and answer parts refused per kind (docs/over-nights.md).
        package var closed: [String: Int] = [:]
        package var refused: [String: Int] = [:]
        package var usage = TokenUsage()
        /// The tokens at Batch API prices (the price file's `batch_multiplier`, or `MESSAGEAI_PRICE_BATCH_DISCOUNT`),
        /// also in `job_runs.estimated_cost_usd`; nil while the batch is still waiting.
        package var cost: RunCost?
        /// Users in conversations whose rows changed.
        var changedUsers: [UUID] = []
    }

    package let pool: PostgresPool
    /// Supplies the prompts (pinned to the versions the batch was rendered with) and the decoders; its provider is unused.
    package let engine: ExtractionEngine
    package let client: OpenAIBatchClient
    /// Users' zones for the rows written (deadline reminders).
    package var zones: UserTimeZonePolicy = .utc
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    let logger = Logger(label: "messageai.batch")

    package init(pool: PostgresPool, engine: ExtractionEngine, client: OpenAIBatchClient) {
        self.pool = pool
        self.engine = engine
        self.client = client
    }

    /// Collects one batch, or every submitted batch.
    package func run(batchID: UUID? = nil, now: Date = Date()) async throws -> [Summary] {
        let store = BatchStore(pool: pool)
        let records: [BatchStore.Record]
        if let batchID {
            guard let record = try await store.record(batchID, registry: engine.registry) else {
                throw JobsError.notFound("no batch \(batchID.uuidString.lowercased()) in llm_batches")
            }
            records = [record]
        } else {
            records = try await store.submitted(registry: engine.registry)
        }
        var summaries: [Summary] = []
        for record in records { summaries.append(try await collect(record, store: store, now: now)) }
        return summaries
    }

    private func collect(_ record: BatchStore.Record, store: BatchStore, now: Date) async throws -> Summary {
        var summary = Summary(batchID: record.id, remoteBatchID: record.remoteBatchID, remoteStatus: "-", status: record.status)
        guard record.status == .submitted, let remoteID = record.remoteBatchID else { return summary }
        let remote = try await client.batch(remoteID)
        try await store.updateRemote(record.id, remote)
        summary.remoteStatus = remote.status.rawValue
        summary.requestCounts = remote.requestCounts
        guard remote.status.isTerminal else { return summary }

        var answers: [String: BatchOutputLine] = [:]
        for fileID in [remote.outputFileID, remote.errorFileID].compactMap({ $0 }) {
            for line in try BatchOutputLine.parse(jsonl: try await client.fileContent(fileID), file: "batch file \(fileID)") {
                answers[line.customID] = line
            }
        }
        // Rows need a run for provenance; a batch whose run row was deleted gets a new one.
        let runID: UUID
        if let existing = record.runID {
            runID = existing
        } else {
            runID = try await JobRunRecorder(pool: pool, lease: runLease).start(
                .batch, provider: "openai-batch", model: record.prompts.values.first?.model, promptSet: engine.prompts.fingerprint)
        }
        var pinned = engine
        // A per-feature batch pins each feature's prompt to the version it was rendered with; a combined batch records
        // the combined prompt for every feature (its version is no version of any feature's prompt), so its features
        // keep their active prompts, whose schemas the combined answer was composed from.
        pinned.promptVersions = record.prompts.filter { $0.value.id == $0.key.promptID }.mapValues(\.version)
        var changedUsers: Set<UUID> = []
        for conversation in try await store.pendingConversations(record.id, registry: engine.registry) {
            let outcome = await apply(conversation, record: record, runID: runID, answers: answers, remote: remote, engine: pinned, now: now, store: store)
            switch outcome {
            case .applied(let run, let written, let participants):
                summary.applied += 1
                for feature in record.features { summary.items[feature.rawValue, default: 0] += run.extraction.count(feature) }
                summary.notes += run.extraction.notes.prefix(20).map(\.description)
                summary.usage += run.usage
                let inserted = written.inserted.values.reduce(0, +), updated = written.updated.values.reduce(0, +)
                summary.rowsInserted += inserted
                summary.rowsUpdated += updated
                summary.remindersCreated += written.remindersCreated
                summary.closed.merge(written.closed, uniquingKeysWith: +)
                summary.refused.merge(written.refused, uniquingKeysWith: +)
                if inserted + updated > 0 { changedUsers.formUnion(participants) }
            case .failed(let error):
                summary.failed += 1
                if summary.failures.count < 50 { summary.failures.append(.init(conversationID: conversation.conversationID, error: error)) }
            case .alreadyDone:
                break
            }
        }
        summary.changedUsers = changedUsers.sorted { $0.uuidString < $1.uuidString }
        summary.status = switch remote.status {
        case .completed: .collected
        case .expired: .expired
        case .cancelled: .cancelled
        default: .failed
        }
        summary.cost = cost(summary.usage, record: record)
        try await store.finish(record.id, status: summary.status)
        try await finishRun(runID, summary, requests: remote.requestCounts?.total ?? 0)
        return summary
    }

    private enum Outcome {
        case applied(ExtractionRun, ExtractionStore.WriteSummary, participants: [UUID])
        case failed(String)
        case alreadyDone
    }

    /// An answer that fails its conversation, with the request it belongs to.
    private struct ItemFailure: Error, CustomStringConvertible {
        let customID: String?
        let message: String
        var description: String { message }
    }

    private func apply(_ conversation: BatchStore.PendingConversation, record: BatchStore.Record, runID: UUID, answers: [String: BatchOutputLine],
                       remote: BatchObject, engine: ExtractionEngine, now: Date, store: BatchStore) async -> Outcome {
        let id = conversation.conversationID
        do {
            let input = try BatchInputSnapshot.decode(conversation.input, conversation: id)
            let run = try decode(conversation, input: input, record: record, answers: answers, remote: remote, engine: engine)
            let written: ExtractionStore.WriteSummary? = try await pool.transaction { db in
                guard try await store.lockPending(record.id, id, on: db) else { return nil }
                let written = try await ExtractionStore(zones: zones, registry: engine.registry).write(
                    run.extraction, input: input, features: record.features,
                    provenance: .init(runID: runID, prompts: record.prompts), replace: false, now: now, on: db)
                try await ScanQueue.advance(id, to: conversation.watermark, runID: runID, owner: BatchOptions.owner(record.id), on: db)
                try await store.markApplied(record.id, id, on: db)
                return written
            }
            guard let written else { return .alreadyDone }
            for refusal in written.refusals {
                logger.notice("answer part refused", metadata: ["batch": "\(record.id.postgresValue)", "conversation": "\(id.postgresValue)",
                                                               "refusal": "\(refusal)"])
            }
            return .applied(run, written, participants: input.participants.compactMap { UUID(uuidString: $0.id) })
        } catch {
            logger.error("batch conversation failed", metadata: ["batch": "\(record.id.postgresValue)", "conversation": "\(id.postgresValue)", "error": "\(error)"])
            let item = (error as? ItemFailure)?.customID
            do {
                try await pool.transaction { db in
                    guard try await store.lockPending(record.id, id, on: db) else { return }
                    try await store.markFailed(record.id, id, error: "\(error)", item: item, on: db)
                }
            } catch {
                logger.error("could not record the failure", metadata: ["conversation": "\(id.postgresValue)", "error": "\(error)"])
            }
            return .failed("\(error)")
        }
    }

    /// Every item's answer, validated and decoded, merged per feature (or per combined window) then across features as
    /// `extract` does.
    private func decode(_ conversation: BatchStore.PendingConversation, input: ConversationInput, record: BatchStore.Record,
                        answers: [String: BatchOutputLine], remote: BatchObject, engine: ExtractionEngine) throws -> ExtractionRun {
        var run = ExtractionRun()
        run.prompts = record.prompts
        // A combined batch has one item per window under `combinedItem`, answering every feature at once.
        for feature in engine.registry.sorted(record.features) + [ExtractionEngine.combinedItem] {
            var partial = ExtractionRun()
            for item in conversation.items where item.feature == feature {
                guard let line = answers[item.customID] else {
                    throw ItemFailure(customID: item.customID, message: "\(item.customID): no answer in the batch (status \(remote.status.rawValue))")
                }
                if let error = line.error { throw ItemFailure(customID: item.customID, message: "\(item.customID): \(error)") }
                guard let status = line.statusCode, (200..<300).contains(status), let body = line.body else {
                    let message = line.body?["error"]?["message"]?.stringValue ?? "no body"
                    throw ItemFailure(customID: item.customID, message: "\(item.customID): HTTP \(line.statusCode ?? 0): \(message.prefix(300))")
                }
                let answer: ExtractionRun
                do {
                    answer = try engine.decodeBatchAnswer(body, feature: feature, features: record.features, window: item.window, input: input)
                } catch {
                    throw ItemFailure(customID: item.customID, message: "\(item.customID): \(error)")
                }
                partial.extraction.merge(answer.extraction)
                partial.usage += answer.usage
                partial.requests += answer.requests
                partial.windows += answer.windows
            }
            run.extraction.merge(partial.extraction)
            run.usage += partial.usage
            run.requests += partial.requests
            run.windows = max(run.windows, partial.windows)
        }
        return run
    }

    /// The batch's tokens at Batch API prices: its own model (what it was submitted with) and server, since this
    /// engine's provider is never asked anything.
    private func cost(_ usage: TokenUsage, record: BatchStore.Record) -> RunCost {
        let models = Set(record.prompts.values.map(\.model))
        let url = client.configuration.baseURL
        let prompt = record.features.lazy.compactMap { try? engine.prompt(for: $0) }.first
        return RunCost.estimate(usage, model: models.count == 1 ? models.first : nil, promptDirectory: prompt.map(RunCost.directory(of:)),
                                batch: true, llm: true, price: client.configuration.price,
                                unpricedServer: LLMConfiguration.isOpenAI(url) ? nil : (url.host ?? url.absoluteString) + (url.port.map { ":\($0)" } ?? ""))
    }

    private func finishRun(_ runID: UUID, _ summary: Summary, requests: Int) async throws {
        var outcome = JobRunRecorder.Outcome(status: summary.failed == 0 ? .succeeded : (summary.applied > 0 ? .partial : .failed))
        outcome.conversationsProcessed = summary.applied
        outcome.conversationsFailed = summary.failed
        outcome.itemCounts = summary.items
        outcome.requests = requests
        outcome.usage = summary.usage
        outcome.estimatedCostUSD = summary.cost?.usd
        outcome.error = summary.failures.first.map { "\(summary.failed) conversation(s) failed; first: \($0.error)" }
        var details = JSONObject()
        ExtractionStore.details(closed: summary.closed, refused: summary.refused, into: &details)
        if !details.isEmpty { outcome.details = .object(details) }
        try await JobRunRecorder(pool: pool, lease: runLease).finish(runID, outcome)
    }
}
