import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Core
package import Postgres
import Tools
import PromptKit
import TestSupport

/// The proactive pass on the generated workload, in a scratch schema: the whole history is extracted by the
/// rules (so every user has events, RSVPs and deadlines), then the pass runs for every user offline (users per
/// second), again (it must add nothing), and once more with a fake model in process (tokens per user).
///
/// The fake model acts like a careful assistant: it calls `check_conflicts` and `get_pending_rsvps`, then ranks
/// every finding it was given, citing their ids. It counts tokens as request bytes / 4 (as `messageai-bench serve` does), so
/// token figures follow the real prompt, tools and tool results.
package struct ProactiveBenchmark: Sendable {
    package struct Options: Sendable {
        package var conversations: Int
        package var days = 7
        package var seed: UInt64 = 1
        package var promptsPath = "prompts"
        package var concurrency = 4
        package var batchSize = 200
        package init(conversations: Int) { self.conversations = conversations }
    }

    package struct Result: Sendable, Codable {
        package var conversations: Int
        package var days: Int
        package var seed: UInt64
        package var users = 0
        package var extractSeconds = 0.0
        package var offlineSeconds = 0.0
        package var usersPerSecond = 0.0
        package var findings: [String: Int] = [:]
        package var usersWithFindings = 0
        package var secondPassNew = 0
        package var secondPassResolved = 0
        package var llmSeconds = 0.0
        package var llmRuns = 0
        package var promptTokensPerUser = 0.0
        package var completionTokensPerUser = 0.0
        package var droppedItems = 0
        /// The second night with the model and nothing new: users the pass looked at, users whose findings changed
        /// since their last run, and model runs (must be 0).
        package var secondNightUsers = 0
        package var secondNightChangedUsers = 0
        package var secondNightRuns = 0
        /// Model runs per user whose findings changed (0 when none changed and none ran).
        package var secondNightRunsPerChangedUser = 0.0
    }

    package let database: PostgresConfiguration

    /// Where `MESSAGEAI_HOME` and the other settings the benchmark's engine reads come from (the binary's one read).
    package let environment: [String: String]

    package init(database: PostgresConfiguration, environment: [String: String] = [:]) {
        self.database = database
        self.environment = environment
    }

    package func run(_ options: Options, log: @Sendable (String) -> Void = { _ in }) async throws -> Result {
        var result = Result(conversations: options.conversations, days: options.days, seed: options.seed)
        let now = Date()
        let workload = try WorkloadGenerator.make(WorkloadSpec(conversations: options.conversations, days: options.days, seed: options.seed, now: now))
        return try await ScratchSchema.with(database, connections: options.concurrency + 2) { pool in
            let load = try await WorkloadLoader(pool: pool).load(workload)
            result.users = load.users
            // Extract the whole history, not only the last day, so the pass has every user's rows to look at.
            try await pool.query("DELETE FROM scan_watermarks")
            log("extracting \(load.messages) messages with the rules")
            let engine = try ExtractionEngine(prompts: try ProviderFactory.library(promptsPath: options.promptsPath, environment: environment),
                                              provider: RulesAnswerProvider())
            var scan = ScanOptions()
            scan.concurrency = options.concurrency
            scan.owner = "bench"
            result.extractSeconds = try await ScanService(pool: pool, engine: engine, options: scan).run(now: now).seconds

            var passOptions = ProactivePass.Options()
            passOptions.batchSize = options.batchSize
            passOptions.concurrency = options.concurrency
            log("proactive pass, offline, \(load.users) users")
            let offline = try await ProactivePass(pool: pool, options: passOptions).run(.all, now: now)
            result.offlineSeconds = offline.seconds
            result.usersPerSecond = offline.seconds > 0 ? Double(offline.usersPassed) / offline.seconds : 0
            result.findings = offline.findings
            result.usersWithFindings = try await pool.query(
                "SELECT count(DISTINCT user_id) AS n FROM assistant_findings WHERE status = 'open'")[0].decode("n")
            let again = try await ProactivePass(pool: pool, options: passOptions).run(.all, now: now)
            result.secondPassNew = again.written.inserted
            result.secondPassResolved = again.written.resolved

            log("proactive pass with the fake model")
            let library = try PromptLibrary.load(directory: try ProviderFactory.promptDirectory(options.promptsPath, environment: environment))
            let assistant = AssistService(pool: pool, client: FakeAssistantModel(), prompts: library, modelOverride: "bench-model")
            let llm = try await ProactivePass(pool: pool, options: passOptions, assistant: assistant).run(.all, now: now)
            result.llmSeconds = llm.seconds
            result.llmRuns = llm.narrated + llm.narrationFailed
            result.droppedItems = llm.dropped
            if result.llmRuns > 0 {
                // As each assistant run recorded them: the in-process model is no HTTP client, so the pass's meter
                // (which counts what the model client sent) sees none of its tokens.
                let spent = try await pool.query(
                    "SELECT coalesce(sum(prompt_tokens), 0)::bigint AS p, coalesce(sum(completion_tokens), 0)::bigint AS c FROM assistant_runs WHERE run_id = $1",
                    [llm.runID])[0]
                result.promptTokensPerUser = Double(try spent.decode("p", as: Int64.self)) / Double(result.llmRuns)
                result.completionTokensPerUser = Double(try spent.decode("c", as: Int64.self)) / Double(result.llmRuns)
            }
            log("second night with the fake model, nothing new")
            let changedBefore = try await Self.usersWithChangedFindings(pool)
            let second = try await ProactivePass(pool: pool, options: passOptions, assistant: assistant).run(.changed, now: now)
            result.secondNightUsers = second.usersConsidered ?? second.usersPassed
            result.secondNightChangedUsers = changedBefore
            result.secondNightRuns = second.narrated + second.narrationFailed
            result.secondNightRunsPerChangedUser = result.secondNightRuns == 0 ? 0
                : Double(result.secondNightRuns) / Double(max(1, result.secondNightChangedUsers))
            return result
        }
    }

    /// Users with open findings whose digest differs from the one their last successful assistant run saw.
    private static func usersWithChangedFindings(_ pool: PostgresPool) async throws -> Int {
        try await pool.query(
            """
            SELECT count(*) AS n FROM (
              SELECT f.user_id, md5(string_agg(f.kind || '|' || f.subject_key || '|' || f.fingerprint, E'\\n'
                                               ORDER BY f.kind, f.subject_key)) AS d
              FROM assistant_findings f WHERE f.status = 'open' AND NOT f.dismissed GROUP BY f.user_id) cur
            LEFT JOIN proactive_users p ON p.user_id = cur.user_id
            WHERE p.narrated_digest IS DISTINCT FROM cur.d
            """)[0].decode("n")
    }
}

/// The benchmark's in-process model: two tool calls, then an answer that ranks every finding it was given.
struct FakeAssistantModel: ChatCompleting {
    func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        let bytes = request.body().serializedData().count
        let message: ChatCompletionResponse.Message
        if !request.messages.contains(where: { $0.role == "tool" }), request.toolChoice != .disabled {
            message = .init(content: nil, toolCalls: [
                ToolCall(id: "call_1", name: "check_conflicts", arguments: #"{"event_id":null,"date":null,"start_time":null,"end_time":null}"#),
                ToolCall(id: "call_2", name: "get_pending_rsvps", arguments: "{}"),
            ])
        } else {
            message = .init(content: Self.answer(request).serialized())
        }
        let completion = (message.content?.utf8.count ?? 120) / 4 + 1
        let response = ChatCompletionResponse(
            id: "chatcmpl-bench", model: request.model ?? "bench-model", created: 1_767_225_600,
            choices: [.init(index: 0, message: message, finishReason: message.toolCalls.isEmpty ? .stop : .toolCalls)],
            usage: Usage(promptTokens: bytes / 4, completionTokens: completion))
        return ChatCompletionResult(response: response)
    }

    /// Every finding of the user message, in order, with a line of explanation.
    static func answer(_ request: ChatCompletionRequest) -> JSONValue {
        let user = request.messages.compactMap { message -> String? in
            if case .user(let text) = message { return text }
            return nil
        }.first ?? ""
        return FakeAssistantAnswer.raisingEvery(findingsIn: user)
    }
}
