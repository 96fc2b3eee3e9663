package import AgentRuntime
import Core
package import Extractors
package import Foundation
import Logging
package import Postgres

/// On-demand extraction of one conversation: read it, run the extractors, write every feature's rows in
/// one transaction, and record the run. A failure leaves the stored rows exactly as they were.
package struct ExtractService: Sendable {
    package struct Summary: Sendable, Codable {
        package var runID: UUID
        package var conversationID: UUID
        package var conversationName: String
        package var provider: String
        package var dryRun: Bool
        package var messages: Int
        package var windows: Int
        package var items: [String: Int]
        package var written: ExtractionStore.WriteSummary?
        package var notes: [String]
        package var requests: Int
        package var reasks: Int
        package var usage: TokenUsage
        package var seconds: Double
        package var extraction: Extraction
        /// The messages the items cite, with their text: each item's evidence (its `sources` name them), as the
        /// model was shown them. Items carry their own `date_phrase`.
        package var evidence: [EvidenceMessage]?
    }

    /// One cited message as `extract --json` shows it.
    package struct EvidenceMessage: Sendable, Codable, Equatable {
        package var messageID: String
        package var senderID: String
        package var sentAt: Date
        package var text: String
    }

    /// The messages of `input` that `extraction`'s items cite (`PredictionWords.cited`), in conversation order, each cut
    /// to 1,000 characters.
    static func evidence(_ extraction: Extraction, input: ConversationInput) -> [EvidenceMessage] {
        let cited = Set((try? JSONValue.encode(extraction)).map(PredictionWords.cited) ?? [])
        return input.messages.filter { cited.contains($0.id) }.map {
            EvidenceMessage(messageID: $0.id, senderID: $0.senderID, sentAt: $0.sentAt, text: String($0.text.prefix(1_000)))
        }
    }

    package let pool: PostgresPool
    package let engine: ExtractionEngine
    package var reader = ConversationReader()
    /// How long the write transaction waits for a row lock held elsewhere before failing; nil: the connection's
    /// `lock_timeout` (`DATABASE_LOCK_TIMEOUT`), as for every other statement.
    package var lockTimeout: Duration?
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    let logger = Logger(label: "messageai.extract")

    package init(pool: PostgresPool, engine: ExtractionEngine) {
        self.pool = pool
        self.engine = engine
    }

    package func run(conversationID: UUID, features: [ExtractionFeature], dryRun: Bool, now: Date = Date()) async throws -> Summary {
        let started = Date()
        var input = try await load(conversationID, now: now)
        let recorder = JobRunRecorder(pool: pool, lease: runLease)
        let runID = try await recorder.start(
            .extract, provider: engine.provider.name,
            model: features.first.flatMap { try? engine.prompt(for: $0) }.map { engine.provider.modelName(for: $0) },
            options: ["conversation_id": .string(conversationID.postgresValue), "dry_run": .bool(dryRun),
                      "features": .array(features.map { .string($0.rawValue) })],
            promptSet: engine.prompts.fingerprint, prompts: engine.fingerprints(features))
        var outcome = JobRunRecorder.Outcome(status: .failed)
        // Counts every attempt and token, so a run that fails half-way still records what it spent.
        let meter = LLMSpendMeter()
        recorder.track(runID, meter)
        var logger = self.logger
        logger[metadataKey: "run"] = "\(runID.postgresValue)"
        logger[metadataKey: "conversation"] = "\(conversationID.postgresValue)"
        // What the model said in answers that failed or were re-asked, kept with the failure.
        let answers = ModelAnswerLog()
        do {
            let extracted: (run: ExtractionRun, written: ExtractionStore.WriteSummary?)
            do {
                extracted = try await ModelAnswerLog.$current.withValue(answers) {
                    try await extractAndWrite(input, features: features, dryRun: dryRun, runID: runID, meter: meter, now: now, logger: logger)
                }
            } catch let error as PostgresError where error.sqlState == .foreignKeyViolation {
                // A message the answer cites was deleted while the model worked: read the conversation again (without it)
                // and ask once more, rather than failing the extraction.
                logger.notice("a message was deleted during the extraction: reading the conversation again", metadata: ["error": "\(error)"])
                input = try await load(conversationID, now: now)
                extracted = try await extractAndWrite(input, features: features, dryRun: dryRun, runID: runID, meter: meter, now: now, logger: logger)
            }
            let (run, written) = extracted
            // The run's one count of what it spent: every attempt the client made, retried and failed ones included.
            outcome.requests = meter.attempts
            outcome.usage = TokenUsage(meter.usage)
            outcome.estimatedCostUSD = RunCost.estimate(outcome.usage, engine: engine, features: features).usd
            for feature in features { outcome.itemCounts[feature.rawValue] = run.extraction.count(feature) }
            if let written {
                var details = JSONObject()
                ExtractionStore.details(closed: written.closed, refused: written.refused, into: &details)
                if !details.isEmpty { outcome.details = .object(details) }
                for refusal in written.refusals { logger.notice("answer part refused", metadata: ["refusal": "\(refusal)"]) }
            }
            outcome.status = .succeeded
            outcome.conversationsProcessed = 1
            try await recorder.finish(runID, outcome)
            logger.debug("conversation extracted", metadata: [
                "items": "\(outcome.itemCounts.values.reduce(0, +))", "requests": "\(run.requests)",
                "prompt_tokens": "\(run.usage.promptTokens)", "completion_tokens": "\(run.usage.completionTokens)",
                "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))", "dry_run": "\(dryRun)",
            ])
            return Summary(
                runID: runID, conversationID: conversationID, conversationName: input.name, provider: engine.provider.name,
                dryRun: dryRun, messages: input.messages.count, windows: run.windows,
                items: outcome.itemCounts, written: written, notes: run.extraction.notes.map(\.description),
                requests: run.requests, reasks: run.reasks, usage: run.usage,
                seconds: Date().timeIntervalSince(started),
                extraction: run.extraction, evidence: Self.evidence(run.extraction, input: input))
        } catch {
            outcome.requests = meter.attempts
            outcome.usage = TokenUsage(meter.usage)
            outcome.estimatedCostUSD = RunCost.estimate(outcome.usage, engine: engine, features: features).usd
            outcome.conversationsFailed = 1
            outcome.error = "\(error)"
            var failure = RunFailure(conversationID: conversationID, error: error)
            failure.answers = answers.answers.isEmpty ? nil : answers.answers.map(\.redacted)
            outcome.failures = [failure]
            try? await recorder.finish(runID, outcome)
            logger.debug("extract failed", metadata: ["error": "\(error)"])
            throw error
        }
    }

    private func load(_ conversationID: UUID, now: Date) async throws -> ConversationInput {
        guard let input = try await pool.withConnection({ try await reader.load(conversationID, now: now, on: $0) }) else {
            throw JobsError.notFound("no conversation with id \(conversationID.postgresValue)")
        }
        return input
    }

    /// Asks the model about `input` and, unless `dryRun`, writes its rows in one transaction.
    private func extractAndWrite(_ input: ConversationInput, features: [ExtractionFeature], dryRun: Bool, runID: UUID, meter: LLMSpendMeter,
                                 now: Date, logger: Logger) async throws -> (run: ExtractionRun, written: ExtractionStore.WriteSummary?) {
        let run = try await LLMSpendMeter.$current.withValue(meter) {
            try await engine.extract(input, features: features, logger: logger)
        }
        guard !dryRun else { return (run, nil) }
        let complete = input.messages.count < reader.maxMessages
        let lockTimeout = self.lockTimeout?.postgresMilliseconds
        let written = try await pool.transaction { db in
            // A row lock held elsewhere fails this run after the bound instead of stalling a worker.
            if let lockTimeout { try await db.query("SELECT set_config('lock_timeout', $1, true)", [lockTimeout]) }
            return try await ExtractionStore(zones: reader.zones, registry: engine.registry).write(
                run.extraction, input: input, features: features,
                provenance: .init(runID: runID, prompts: run.prompts), replace: complete, now: now, on: db)
        }
        return (run, written)
    }
}
