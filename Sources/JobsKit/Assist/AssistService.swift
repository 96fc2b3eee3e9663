import AgentRuntime
import Chrono
import Extractors
import Foundation
import JSONKit
import Logging
import Postgres
import PromptKit
import Tools

/// The proactive assistant for one user: the agent loop over that user's tools (messages, calendar events,
/// RSVPs, deadlines, reminders), its findings stored for the app in `assistant_findings`, every step in
/// `agent_traces`, and the run in `job_runs`.
public struct AssistService: Sendable {
    public struct Summary: Sendable, Codable {
        public var runID: UUID
        public var userID: UUID
        public var userName: String
        public var stopReason: String
        public var steps: Int
        public var toolCalls: Int
        public var findings: JSONValue?
        public var finalText: String?
        public var remindersCreated: Int
        public var usage: TokenUsage
        /// The tokens at list prices, also in `job_runs.estimated_cost_usd`.
        public var cost: RunCost
        public var seconds: Double
    }

    public let pool: PostgresPool
    public let client: any ChatCompleting
    public let prompts: PromptLibrary
    public let structuredOutput: StructuredOutputMode
    public let modelOverride: String?
    public var limits = AgentLimits(maxSteps: 5, maxToolCallsPerStep: 6, maxConcurrentToolCalls: 4, tokenBudget: 60_000,
                                    timeLimit: .seconds(120))
    public var maxRemindersPerRun = 3

    public init(pool: PostgresPool, client: any ChatCompleting, prompts: PromptLibrary,
                structuredOutput: StructuredOutputMode = .jsonSchema, modelOverride: String? = nil) {
        self.pool = pool
        self.client = client
        self.prompts = prompts
        self.structuredOutput = structuredOutput
        self.modelOverride = modelOverride
    }

    public func run(userID: UUID, now: Date = Date()) async throws -> Summary {
        let started = Date()
        let users = try await pool.query(
            """
            SELECT COALESCE(NULLIF(u.display_name, ''), u.username) AS name, COALESCE(s.time_zone, 'UTC') AS zone
            FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = $1
            """, [userID])
        guard let user = users.first else { throw ExtractionError.invalidInput("no user with id \(userID.postgresValue)") }
        let name: String = try user.decode("name")
        let zone = TimeZone(identifier: try user.decode("zone", as: String.self)) ?? TimeZone(identifier: "UTC")!
        guard let prompt = prompts.latest(id: "assistant"), let schema = prompt.outputSchema else {
            throw ExtractionError.promptProblem("no 'assistant' prompt with an output schema in the prompt library")
        }
        let model = modelOverride ?? prompt.model
        let today = LocalDate(now, in: zone)
        let rendered: RenderedPrompt
        do {
            rendered = try prompt.render([
                "today": today.iso, "weekday": ISOTime.weekdayName(today), "now": ISOTime.string(now, in: zone),
                "timezone": zone.identifier, "user_name": name, "user_id": "me",
            ], model: model)
        } catch {
            throw ExtractionError.promptProblem("\(prompt.sourceFile): \(error)")
        }
        let recorder = JobRunRecorder(pool: pool)
        let runID = try await recorder.start(.assist, provider: "openai", model: model,
                                             options: ["user_id": .string(userID.postgresValue)])
        do {
            let tools = try await AssistantTools.make(
                userID: userID, pool: pool, runID: runID, promptID: prompt.id, promptVersion: prompt.version, model: model,
                now: now, maxRemindersPerRun: maxRemindersPerRun)
            let runner = AgentRunner(
                client: client, model: model, tools: tools, limits: limits, temperature: prompt.parameters.temperature,
                seed: prompt.parameters.seed, maxCompletionTokens: prompt.parameters.maxTokens)
            let name = prompt.outputName ?? "assistant_findings"
            let output = try AgentOutputSchema(
                name: name, schema: schema,
                responseFormat: structuredOutput == .jsonSchema ? .jsonSchema(name: name, schema: schema, strict: true) : .jsonObject(schema: schema))
            let system = rendered.messages.first { $0.role == .system }?.content ?? ""
            let userText = rendered.messages.last { $0.role == .user }?.content ?? ""
            let result = await runner.run(system: system, user: userText, output: output)
            let usage = TokenUsage(promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens,
                                   cachedPromptTokens: result.usage.cachedPromptTokens ?? 0)
            let reminders = try await AssistStore.save(
                result, runID: runID, userID: userID, prompt: PromptRef(id: prompt.id, version: prompt.version, model: model), pool: pool)
            var outcome = JobRunRecorder.Outcome(status: result.output != nil ? .succeeded : .failed)
            outcome.requests = result.steps.count
            outcome.usage = usage
            let cost = RunCost.estimate(usage, model: model, promptDirectory: RunCost.directory(of: prompt))
            outcome.estimatedCostUSD = cost.usd
            outcome.itemCounts = ["reminders": reminders, "tool_calls": result.toolCallCount]
            if result.output == nil { outcome.error = "the assistant gave no valid answer: \(result.stopReason)" }
            try await recorder.finish(runID, outcome)
            return Summary(
                runID: runID, userID: userID, userName: name, stopReason: "\(result.stopReason)", steps: result.steps.count,
                toolCalls: result.toolCallCount, findings: result.output, finalText: result.finalText, remindersCreated: reminders,
                usage: usage, cost: cost, seconds: Date().timeIntervalSince(started))
        } catch {
            var outcome = JobRunRecorder.Outcome(status: .failed)
            outcome.error = "\(error)"
            try? await recorder.finish(runID, outcome)
            throw error
        }
    }
}
