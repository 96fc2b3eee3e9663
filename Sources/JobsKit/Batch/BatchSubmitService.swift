package import AgentRuntime
package import Extractors
package import Foundation
import Core
import Logging
package import Postgres

/// The first half of a batch scan: claim conversations as the synchronous scan does, render every request it would
/// send, upload them as one JSONL file and create an OpenAI batch. Claimed conversations stay leased to
/// `batch:<id>` for the completion window plus slack, so a synchronous scan meanwhile skips them.
package struct BatchSubmitService: Sendable {
    package struct Summary: Sendable, Codable {
        package var batchID: UUID
        package var runID: UUID
        /// submitted, or empty when nothing needed the model.
        package var status: BatchState
        package var remoteBatchID: String?
        package var inputFileID: String?
        /// Conversations waiting in the batch.
        package var conversations = 0
        /// Conversations whose new messages all failed the pre-filter: advanced at once, as the synchronous scan does.
        package var advanced = 0
        package var failed = 0
        package var failures: [ScanService.Failure] = []
        package var requests = 0
        package var newMessages = 0
        package var skippedMessages = 0
    }

    package let pool: PostgresPool
    package let engine: ExtractionEngine
    package let client: OpenAIBatchClient
    package let options: BatchOptions
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    let logger = Logger(label: "messageai.batch")

    package init(pool: PostgresPool, engine: ExtractionEngine, client: OpenAIBatchClient, options: BatchOptions) {
        self.pool = pool
        self.engine = engine
        self.client = client
        self.options = options
    }

    package func run(now: Date = Date()) async throws -> Summary {
        let features = engine.registry.sorted(options.scan.features ?? engine.registry.ids)
        let (prompts, model) = try promptRefs(features)
        let batchID = UUID()
        var scanOptions = options.scan
        scanOptions.owner = BatchOptions.owner(batchID)
        let queue = ScanQueue(pool: pool, options: scanOptions)
        try await queue.prepare()
        let runID = try await startRun(batchID, features: features, prompts: prompts, model: model, shard: scanOptions)
        var summary = Summary(batchID: batchID, runID: runID, status: .preparing)
        do {
            let lines = try await claimAndPrepare(queue, batchID: batchID, runID: runID, features: features, now: now, summary: &summary)
            try await submit(lines, batchID: batchID, runID: runID, summary: &summary)
            return summary
        } catch {
            await abandon(batchID, runID: runID, error: error)
            throw error
        }
    }

    /// Each feature's prompt as the batch records it (in combined mode the combined prompt, as `extractCombined`
    /// records it), and the one model they all name (a batch file may name only one).
    private func promptRefs(_ features: [ExtractionFeature]) throws -> (prompts: [ExtractionFeature: PromptRef], model: String?) {
        var prompts: [ExtractionFeature: PromptRef] = [:]
        let combined = engine.mode == .combined && features.count > 1 ? try engine.combinedPrompt() : nil
        for feature in features {
            let prompt = try combined ?? engine.prompt(for: feature)
            prompts[feature] = PromptRef(id: prompt.id, version: prompt.version, model: engine.provider.modelName(for: prompt))
        }
        let models = Set(prompts.values.map(\.model))
        guard models.count <= 1 else {
            throw JobsError.invalidInput(
                "a batch can use only one model, but the prompts name \(models.sorted().joined(separator: ", ")); pass --model to choose one")
        }
        return (prompts, models.first)
    }

    /// Opens the batch's `job_runs` row and its `llm_batches` row; returns the run's id.
    private func startRun(_ batchID: UUID, features: [ExtractionFeature], prompts: [ExtractionFeature: PromptRef], model: String?,
                          shard scanOptions: ScanOptions) async throws -> UUID {
        let runID = try await JobRunRecorder(pool: pool, lease: runLease).start(
            .batch, provider: "openai-batch", model: model,
            options: ["batch_id": .string(batchID.uuidString.lowercased()),
                      "shard": .string("\(scanOptions.shardIndex)/\(scanOptions.shardCount)"),
                      "features": .array(features.map { .string($0.rawValue) }),
                      "request_mode": .string(engine.mode.rawValue)],
            promptSet: engine.prompts.fingerprint, prompts: engine.fingerprints(features))
        try await BatchStore(pool: pool).create(batchID, runID: runID, features: features, prompts: prompts)
        return runID
    }

    /// Claims conversations up to the limit and renders their requests; a conversation that fails is released and
    /// counted, and the others go on.
    private func claimAndPrepare(_ queue: ScanQueue, batchID: UUID, runID: UUID, features: [ExtractionFeature], now: Date,
                                 summary: inout Summary) async throws -> [BatchInputLine] {
        var lines: [BatchInputLine] = []
        var attempted: [UUID] = []
        while options.scan.limit.map({ attempted.count < $0 }) ?? true,
              let claim = try await queue.claimNext(runID: runID) {
            attempted.append(claim.conversationID)
            do {
                lines += try await prepare(claim, batchID: batchID, runID: runID, features: features, now: now, summary: &summary)
            } catch {
                logger.error("conversation failed", metadata: ["conversation": "\(claim.conversationID.postgresValue)", "error": "\(error)"])
                _ = try? await queue.fail(claim.conversationID, error: "\(error)", signature: FailureSignature.of(error))
                summary.failed += 1
                if summary.failures.count < 50 { summary.failures.append(.init(conversationID: claim.conversationID, error: "\(error)")) }
            }
        }
        return lines
    }

    /// Uploads the lines as one JSONL file and creates the OpenAI batch; with no lines, the batch is marked empty and
    /// the run closed at once.
    private func submit(_ lines: [BatchInputLine], batchID: UUID, runID: UUID, summary: inout Summary) async throws {
        let store = BatchStore(pool: pool)
        summary.requests = lines.count
        if lines.isEmpty {
            try await store.markEmpty(batchID)
            summary.status = .empty
            try await finishRun(runID, summary)
            return
        }
        let file = try await client.uploadBatchFile(BatchInputLine.jsonl(lines), filename: "messageai-scan-\(batchID.uuidString.lowercased()).jsonl")
        let remote = try await client.createBatch(inputFileID: file.id, metadata: [
            "messageai_batch_id": batchID.uuidString.lowercased(), "messageai_run_id": runID.uuidString.lowercased(),
        ])
        try await store.markSubmitted(batchID, remote: remote, requests: lines.count, conversations: summary.conversations,
                                      leaseSeconds: options.submittedLeaseSeconds)
        summary.status = .submitted
        summary.remoteBatchID = remote.id
        summary.inputFileID = file.id
    }

    /// A submit that failed part-way: the batch is abandoned (its conversations released) and the run closed as failed.
    private func abandon(_ batchID: UUID, runID: UUID, error: any Error) async {
        try? await BatchStore(pool: pool).abandon(batchID, error: "\(error)")
        var outcome = JobRunRecorder.Outcome(status: .failed)
        outcome.error = "\(error)"
        try? await JobRunRecorder(pool: pool, lease: runLease).finish(runID, outcome)
    }

    /// Loads and renders one claimed conversation and records it; no lines when nothing needs the model.
    private func prepare(_ claim: ScanQueue.Claim, batchID: UUID, runID: UUID, features: [ExtractionFeature], now: Date,
                         summary: inout Summary) async throws -> [BatchInputLine] {
        let reader = ConversationReader(contextMessages: options.scan.contextMessages, zones: options.scan.zones)
        guard let read = try await pool.withConnection({ try await reader.read(claim.conversationID, since: claim.watermark, now: now, on: $0) }) else {
            return []
        }
        var loaded = read.input
        // The items of earlier nights: the request lists the open ones; the snapshot keeps them for collect.
        loaded.state = try await pool.withConnection { db in
            try await TrackedItemStore().load(claim.conversationID, now: now, timeZone: loaded.timeZone, rekeyAdopted: false, on: db)
        }
        let newMessages = Array(loaded.messages[loaded.firstNewIndex...])
        var input = loaded
        var skipped = 0
        if options.scan.preFilter { (input, skipped) = PreFilter().filter(loaded) }
        summary.newMessages += newMessages.count
        summary.skippedMessages += skipped
        let owner = BatchOptions.owner(batchID)
        guard input.firstNewIndex < input.messages.count else {
            try await pool.transaction { db in
                try await ScanQueue.advance(claim.conversationID, to: newMessages.last, futureDated: read.futureDated, readAt: read.readAt,
                                            runID: runID, owner: owner, on: db)
            }
            summary.advanced += 1
            return []
        }
        let plans = try engine.batchRequests(input, features: features)
        let items = plans.map { plan in
            BatchStore.Item(customID: BatchOptions.customID(batchID: batchID, conversationID: claim.conversationID, feature: plan.feature, window: plan.window),
                            feature: plan.feature, window: plan.window)
        }
        let snapshot = try BatchInputSnapshot(input).json()
        try await pool.transaction { db in
            try await BatchStore(pool: pool).addConversation(
                batchID: batchID, conversationID: claim.conversationID, input: snapshot, watermark: newMessages.last,
                newMessages: newMessages.count, skipped: skipped, items: items, on: db)
        }
        summary.conversations += 1
        let tokenField = client.configuration.maxTokensField
        return zip(plans, items).map { plan, item in
            var request = plan.request
            if request.model == nil { request.model = client.configuration.defaultModel }
            return BatchInputLine(customID: item.customID, body: request.body(tokenField: tokenField))
        }
    }

    private func finishRun(_ runID: UUID, _ summary: Summary) async throws {
        var outcome = JobRunRecorder.Outcome(status: summary.failed == 0 ? .succeeded : (summary.advanced > 0 ? .partial : .failed))
        outcome.conversationsProcessed = summary.advanced
        outcome.conversationsFailed = summary.failed
        outcome.error = summary.failures.first.map { "\(summary.failed) conversation(s) failed; first: \($0.error)" }
        try await JobRunRecorder(pool: pool, lease: runLease).finish(runID, outcome)
    }
}
