package import AgentRuntime
package import Core
package import Extractors
package import Foundation
import Logging
package import Postgres
package import Tools
package import PromptKit

/// The proactive assistant with an LLM. Code computes the findings (`Proactive`); the agent loop starts from them,
/// with the user's tools (messages, events and conflicts, RSVPs, deadlines, reminders), and adds judgment: it
/// ranks and explains them and suggests options. `FindingCheck` drops anything it adds that code did not find.
/// The run's answer and tokens go to `assistant_runs`, every step to `agent_traces`, explanations and ranks to
/// the findings' rows in `assistant_findings`.
package struct AssistService: Sendable {
    package struct Summary: Sendable, Codable {
        package var runID: UUID
        package var userID: UUID
        package var userName: String
        /// Why the agent loop ended (encoded as its text, e.g. "completed" or "error: …").
        package var stopReason: AgentStopReason
        package var steps: Int
        package var toolCalls: Int
        /// The model's answer with dropped items removed (nil when it gave no valid answer).
        package var findings: JSONValue?
        package var finalText: String?
        package var remindersCreated: Int
        package var usage: TokenUsage
        /// The tokens at list prices, also in `job_runs.estimated_cost_usd`.
        package var cost: RunCost
        package var seconds: Double
        /// The code's open findings the run started from, with the explanations the model gave.
        var codeFindings: [OpenFinding] = []
        /// Items of the model's answer that were dropped (an invented finding, an id no tool returned).
        package var dropped: [FindingCheck.Violation] = []
        /// HTTP attempts to the model server, retries and failed calls included.
        package var requests = 0
        /// The reminders the run created (`remindersCreated` of them).
        package var reminders: [AssistantView.Reminder] = []

        /// What the parent sees after this run: the findings in its rank with its notes, its summary, actions and reminders.
        package var view: AssistantView {
            AssistantView(userID: userID, userName: userName, findings: codeFindings, summary: findings?["summary"]?.stringValue,
                          suggestedActions: findings?["suggested_actions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                          remindersCreated: reminders, runID: runID)
        }
    }

    /// Who the run is for.
    struct Person: Sendable {
        package var id: UUID
        package var name: String
        package var zone: TimeZone
    }

    /// Most findings one run is given (the most severe and soonest); bounds the prompt.
    static let maxFindingsPerRun = 20

    package let pool: PostgresPool
    package let client: any ChatCompleting
    package let prompts: PromptLibrary
    package let structuredOutput: StructuredOutputMode
    package let modelOverride: String?
    package var limits = AgentLimits(maxSteps: 5, maxToolCallsPerStep: 6, maxConcurrentToolCalls: 4, tokenBudget: 60_000,
                                    timeLimit: .seconds(120))
    package var maxRemindersPerRun = 3
    /// How long this service's `job_runs` rows count as alive without a heartbeat (`Settings.runLease`).
    package var runLease = JobRunRecorder.defaultLease
    /// Whether a tool step may carry the output schema too (`LLMConfiguration.toolsWithSchema`).
    package var toolsWithSchema = true
    /// Whether the answer's schema carries its size caps (`LLMConfiguration.schemaBounds`).
    package var schemaBounds = false
    /// `tool_choice` of each run's first call (`--first-tool-choice required`: look before answering; a tool's name:
    /// that tool first).
    package var firstToolChoice: ToolChoice = .auto
    /// Whether the server takes `tool_choice` naming a function (`LLMConfiguration.namedToolChoice`).
    package var namedToolChoice = true
    /// The names of the tools every run offers, for options that name one.
    package static var toolNames: [String] { AssistantTools.names }
    package var proactive = ProactiveOptions()
    /// The deployment's price for the server's tokens (`MESSAGEAI_PRICE_*`), and the server when it is not OpenAI's
    /// API: without a price such a server's runs cost "unknown", never OpenAI's list price (`configure(for:)`).
    package var price: TokenPrice?
    package var unpricedServer: String?
    let logger = Logger(label: "messageai.assist")

    package init(pool: PostgresPool, client: any ChatCompleting, prompts: PromptLibrary,
                structuredOutput: StructuredOutputMode = .jsonSchema, modelOverride: String? = nil) {
        self.pool = pool
        self.client = client
        self.prompts = prompts
        self.structuredOutput = structuredOutput
        self.modelOverride = modelOverride
    }

    /// Fits the runs to the model server: tools with or without the schema, and a run time limit that leaves
    /// room for a few calls at the server's request timeout (a slow local server must not hit it on its first call).
    package mutating func configure(for configuration: LLMConfiguration) {
        price = configuration.price
        let url = configuration.baseURL
        unpricedServer = LLMConfiguration.isOpenAI(url) ? nil : (url.host ?? url.absoluteString) + (url.port.map { ":\($0)" } ?? "")
        toolsWithSchema = configuration.toolsWithSchema
        schemaBounds = configuration.schemaBounds
        namedToolChoice = configuration.namedToolChoice
        limits.timeLimit = max(limits.timeLimit ?? .seconds(120), configuration.requestTimeout * 3)
    }

    /// The assistant prompt runs send, with its content hash (`job_runs.prompts`).
    var promptFingerprint: PromptFingerprint? { prompts.active(id: "assistant")?.fingerprint }

    /// The model the runs use.
    package var model: String { modelOverride ?? prompts.active(id: "assistant")?.model ?? "gpt-4o-mini" }

    /// One user on demand (`assist --user`, a worker request): refresh the user's findings by code, then one
    /// bounded agent run over them, recorded as its own job run.
    package func run(userID: UUID, now: Date = Date()) async throws -> Summary {
        let person = try await Self.people([userID], zones: proactive.zones, pool: pool)[userID]
        guard let person else { throw JobsError.notFound("no user with id \(userID.postgresValue)") }
        _ = try prompt()
        let recorder = JobRunRecorder(pool: pool, lease: runLease)
        let runID = try await recorder.start(.assist, provider: "openai", model: model,
                                             options: ["user_id": .string(userID.postgresValue)], promptSet: prompts.fingerprint,
                                             prompts: promptFingerprint.map { [$0] } ?? [])
        // Counts each request as it is sent, so a run stopped mid-request (a signal, an error) records it.
        let meter = LLMSpendMeter()
        recorder.track(runID, meter)
        do {
            let options = proactive
            try await pool.transaction { db in
                let found = try await ProactiveEngine(options: options).findings(for: [userID], now: now, on: db)
                _ = try await FindingStore().write(found, users: [userID], runID: runID, now: now, on: db)
            }
            let open = try await pool.withConnection { try await OpenFinding.load([userID], on: $0) }[userID] ?? []
            let summary = try await LLMSpendMeter.$current.withValue(meter) {
                try await narrate(person, findings: open, runID: runID, now: now)
            }
            var outcome = JobRunRecorder.Outcome(status: summary.findings != nil ? .succeeded : .failed)
            outcome.requests = max(summary.requests, meter.sent)
            outcome.usage = summary.usage
            outcome.itemCounts = ["reminders": summary.remindersCreated, "tool_calls": summary.toolCalls,
                                  "findings": open.count, "dropped": summary.dropped.count]
            outcome.estimatedCostUSD = summary.cost.usd
            if summary.findings == nil {
                outcome.error = "the assistant gave no valid answer: \(summary.stopReason)"
                outcome.failures = [RunFailure(userID: userID, error: outcome.error ?? "")]
            }
            try await recorder.finish(runID, outcome)
            return summary
        } catch {
            var outcome = JobRunRecorder.Outcome(status: .failed)
            outcome.requests = max(meter.sent, meter.attempts)
            outcome.usage = TokenUsage(meter.usage)
            outcome.error = "\(error)"
            outcome.failures = [RunFailure(userID: userID, error: error)]
            try? await recorder.finish(runID, outcome)
            throw error
        }
    }

    /// One bounded agent run for `person`, started from `findings` (code's, already stored), under `runID`
    /// (the user's own run, or the night's pass). Never throws for a model failure: that is the stop reason.
    func narrate(_ person: Person, findings all: [OpenFinding], runID: UUID, now: Date) async throws -> Summary {
        let started = Date()
        let opening = try prepare(person, findings: all, runID: runID, now: now)
        let (prompt, findings) = (opening.prompt, opening.findings)
        let result = await opening.runner.run(system: opening.system, user: opening.user, output: opening.output)
        let toolResults = result.messages.compactMap { message -> String? in
            if case .tool(_, let content) = message { return content }
            return nil
        }
        let checked = result.output.map { FindingCheck(findings: findings, toolResults: toolResults).check($0) }
        if let violations = checked?.violations, !violations.isEmpty {
            logger.warning("assistant answer items dropped", metadata: [
                "dropped": "\(violations.count)",
                "first": "\(violations[0].section): \(violations[0].reason)"])
        }
        let usage = TokenUsage(result.usage)
        let reminders = try await AssistStore.save(
            result, checked: checked, findingsIn: findings.count, runID: runID, userID: person.id,
            prompt: PromptRef(id: prompt.id, version: prompt.version, model: model, sha256: prompt.fingerprint.sha256), pool: pool)
        var explained = findings
        if checked != nil {
            // As stored (`AssistStore`): a finding this answer did not raise loses the rank an older run gave it.
            for index in explained.indices { explained[index].rank = nil }
        }
        for accepted in checked?.accepted ?? [] {
            if let index = explained.firstIndex(where: { $0.subjectKey == accepted.subjectKey && $0.kind == accepted.kind }) {
                explained[index].explanation = accepted.explanation
                explained[index].rank = accepted.rank
            }
        }
        var summary = Summary(
            runID: runID, userID: person.id, userName: person.name, stopReason: result.stopReason, steps: result.steps.count,
            toolCalls: result.toolCallCount, findings: checked?.output, finalText: result.finalText.map { AnswerExcerpt.cut($0) },
            remindersCreated: reminders,
            usage: usage, cost: RunCost.estimate(usage, model: model, promptDirectory: RunCost.directory(of: prompt), llm: true,
                                                 price: price, unpricedServer: unpricedServer),
            seconds: Date().timeIntervalSince(started), codeFindings: explained, dropped: checked?.violations ?? [])
        summary.requests = result.attempts
        if reminders > 0 {
            summary.reminders = try await pool.withConnection {
                try await AssistantView.reminders(run: runID, user: person.id, zone: person.zone, on: $0)
            }
        }
        return summary
    }

    /// The request `run(userID:)` would send first for this user at `now`, without sending it and without keeping
    /// anything: code refreshes the user's findings in a transaction that is rolled back, as the run would before
    /// its first call. What `prompts render --prompt assistant --user` prints.
    package func firstRequest(userID: UUID, now: Date = Date()) async throws -> ChatCompletionRequest {
        let person = try await Self.people([userID], zones: proactive.zones, pool: pool)[userID]
        guard let person else { throw JobsError.notFound("no user with id \(userID.postgresValue)") }
        _ = try prompt()
        let options = proactive
        var open: [OpenFinding] = []
        do {
            try await pool.transaction { db -> Void in
                let found = try await ProactiveEngine(options: options).findings(for: [userID], now: now, on: db)
                _ = try await FindingStore().write(found, users: [userID], runID: nil, now: now, on: db)
                throw RolledBack(findings: try await OpenFinding.load([userID], on: db)[userID] ?? [])
            }
        } catch let preview as RolledBack {
            open = preview.findings
        }
        let opening = try prepare(person, findings: open, runID: UUID(), now: now)
        return opening.runner.firstRequest(system: opening.system, user: opening.user, output: opening.output)
    }

    /// Carries the refreshed findings out of the preview's transaction, which throwing rolls back.
    private struct RolledBack: Error { let findings: [OpenFinding] }

    /// One run's opening, ready to send: the prompt rendered for the user, the loop with the user's tools, and the
    /// output schema. Shared by the run and its preview so the two cannot drift.
    struct Opening {
        let prompt: Prompt
        let findings: [OpenFinding]
        let runner: AgentRunner
        let system: String
        let user: String
        let output: AgentOutputSchema
    }

    func prepare(_ person: Person, findings all: [OpenFinding], runID: UUID, now: Date) throws -> Opening {
        let prompt = try prompt()
        let findings = Array(all.prefix(Self.maxFindingsPerRun))
        let today = LocalDate(now, in: person.zone)
        let rendered: RenderedPrompt
        do {
            rendered = try prompt.render([
                "today": today.iso, "weekday": today.weekdayName, "now": ISO8601Instant.string(now, in: person.zone),
                "timezone": person.zone.identifier, "user_name": person.name, "user_id": "me",
                "findings": JSONValue.array(findings.map(\.promptJSON)).serialized(),
            ], model: model)
        } catch {
            throw JobsError.promptProblem("\(prompt.sourceFile): \(error)")
        }
        var context = ToolContext(
            userID: person.id, pool: pool, timeZone: person.zone, now: now,
            provenance: ToolProvenance(runID: runID, promptID: prompt.id, promptVersion: prompt.version, model: model),
            reminderBudget: ReminderBudget(limit: maxRemindersPerRun))
        context.conflicts = ScheduleConflicts(travelGap: proactive.travelGap)
        var logger = self.logger
        logger[metadataKey: "user"] = "\(person.id.postgresValue)"
        logger[metadataKey: "run"] = "\(runID.postgresValue)"
        var runner = AgentRunner(
            client: client, model: model, tools: try AssistantTools.make(context: context), limits: limits,
            temperature: prompt.parameters.temperature, seed: prompt.parameters.seed, maxCompletionTokens: prompt.parameters.maxTokens,
            logger: logger)
        runner.toolsWithSchema = toolsWithSchema
        runner.firstToolChoice = firstToolChoice
        runner.namedToolChoice = namedToolChoice
        let name = prompt.outputName ?? "assistant_findings"
        let schema = prompt.outputSchema ?? .object([:])
        let output = try AgentOutputSchema(
            name: name, schema: schema,
            responseFormat: structuredOutput.responseFormat(
                name: name, schema: schema,
                wireSchema: schemaBounds ? StrictSchemaLint.boundedWireSchema(schema, compact: false) : StrictSchemaLint.wireSchema(schema)))
        let system = rendered.messages.first { $0.role == .system }?.content ?? ""
        let userText = rendered.messages.last { $0.role == .user }?.content ?? ""
        return Opening(prompt: prompt, findings: findings, runner: runner, system: system, user: userText, output: output)
    }

    func prompt() throws -> Prompt {
        guard let prompt = prompts.active(id: "assistant"), prompt.outputSchema != nil else {
            throw JobsError.promptProblem("no 'assistant' prompt with an output schema in the prompt library")
        }
        return prompt
    }

    /// Names and zones of `users` (the ones that exist), in two set-based queries.
    static func people(_ users: [UUID], zones policy: UserTimeZonePolicy, pool: PostgresPool) async throws -> [UUID: Person] {
        try await pool.withConnection { db in
            let zones = try await UserZones.load(users, policy: policy, on: db).zones
            var result: [UUID: Person] = [:]
            for row in try await db.query(
                "SELECT id, COALESCE(NULLIF(display_name, ''), username) AS name FROM users WHERE id = ANY($1::uuid[])", [users]) {
                let id: UUID = try row.decode("id")
                result[id] = Person(id: id, name: try row.decode("name"), zone: zones[id] ?? policy.fallback)
            }
            return result
        }
    }
}
