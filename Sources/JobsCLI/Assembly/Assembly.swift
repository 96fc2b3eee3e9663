package import AgentRuntime
package import Extractors
import Logging
package import Postgres
package import PromptKit
package import Evaluation
package import JobsKit

/// Builds what a command needs from its `Settings`: the pool (lent for the command's life, then shut down), the
/// model client behind the process's one rate limiter, the engine, the assistant and the services (`Services`).
/// Commands parse their flags, call the assembly and a service, and print; the wiring lives here only.
package struct Assembly: Sendable {
    package let settings: Settings
    /// One line for every model request of the process: a scan's conversations and its proactive pass, `extract`,
    /// the worker's extract and assist requests, `assist`, and `eval`'s requests that miss its answer cache. Same `OPENAI_RPM` / `OPENAI_TPM` for all of them; the
    /// in-flight bound (`OPENAI_MAX_CONCURRENCY`) is the configuration's process-wide `ServerConcurrencyLimit`.
    package let limiter: RateLimiter

    /// `limiter`: tests pass one on a virtual clock.
    package init(settings: Settings, limiter: RateLimiter? = nil) {
        self.settings = settings
        self.limiter = limiter ?? RateLimiter(limits: settings.rateLimits)
        CLILogging.registerPassword(of: settings.database)
    }

    package var registry: FeatureRegistry { settings.registry }

    /// The LLM or the rules for a provider choice (default: the settings' `--provider`).
    package func resolution(_ choice: ProviderChoice? = nil) throws -> ProviderFactory.Resolution {
        try ProviderFactory.resolve(choice ?? settings.flags.provider, configuration: settings.llm)
    }

    /// The client every service talks to the model server through.
    func modelClient(_ configuration: LLMConfiguration) -> any ChatCompleting {
        rateLimited(OpenAIClient(configuration: configuration))
    }

    /// `client` behind the process's one limiter: the one place a model client gets its rate limit; every call is
    /// recorded in `ModelServerMetrics` too (a no-op unless the worker serves /metrics).
    func rateLimited(_ client: any ChatCompleting) -> any ChatCompleting {
        MeteredChatClient(inner: RateLimitedClient(inner: client, limiter: limiter))
    }

    /// The prompt set: `--prompts`, else `$MESSAGEAI_HOME/prompts`, else embedded; pinned by `MESSAGEAI_PROMPT_VERSIONS`
    /// and `--prompt-version`.
    package func prompts() throws -> PromptLibrary {
        try ProviderFactory.library(promptsPath: settings.flags.prompts, versions: settings.flags.promptVersions, environment: settings.environment)
    }

    /// The extraction engine in the settings' request mode: the rule-based provider, or the LLM through `modelClient`.
    /// When `auto` falls back to the rules, says so on stderr.
    package func engine(_ choice: ProviderChoice? = nil) throws -> ExtractionEngine {
        let provider: any AnswerProvider
        switch try resolution(choice) {
        case .rules(let notice):
            if let notice { CLILogging.notice(notice) }
            provider = RulesAnswerProvider()
        case .llm(let configuration):
            provider = ProviderFactory.llmProvider(configuration, modelOverride: settings.flags.model, wrap: rateLimited)
        }
        var engine = try ExtractionEngine(prompts: try prompts(), provider: provider,
                                          windowing: Windowing(maxInputTokens: settings.flags.windowTokens), registry: registry)
        engine.mode = settings.requestMode
        return engine
    }

    /// The assistant on `pool`, talking through `modelClient`; nil when the choice comes to the rule-based provider
    /// (the proactive pass then keeps the code's template suggestions).
    package func assistant(pool: PostgresPool, _ choice: ProviderChoice? = nil, maxSteps: Int = 5) throws -> AssistService? {
        guard case .llm(let configuration) = try resolution(choice) else { return nil }
        var service = AssistantFactory.service(configuration, pool: pool, prompts: try prompts(), modelOverride: settings.flags.model,
                                               client: modelClient(configuration))
        service.limits.maxSteps = maxSteps
        service.proactive.zones = settings.zones
        service.proactive.deadlineDays = settings.deadlineDays
        service.runLease = settings.runLease
        return service
    }

    /// `eval`'s options as the settings say (provider, model server, prompts, window, request mode, registry, environment),
    /// with the process's one limiter: the run's requests that miss its answer cache ask it, cache hits do not.
    package func evalOptions() -> EvalRunOptions {
        var options = EvalRunOptions()
        options.registry = registry
        options.provider = settings.flags.provider
        options.model = settings.flags.model
        options.promptsPath = settings.flags.prompts
        options.windowing = Windowing(maxInputTokens: settings.flags.windowTokens)
        options.mode = settings.requestMode
        options.llm = settings.llm
        options.environment = settings.environment
        options.limiter = limiter
        return options
    }

    /// The OpenAI server batches go to; batches have no rule-based fallback.
    func batchConfiguration() throws -> LLMConfiguration {
        guard let configuration = settings.llm else {
            throw ProviderError.noLLM(otherwise: "set to the server the batches were submitted to (they live there; there is no offline batch)")
        }
        return configuration
    }

    /// Lends `body` the services on a pool of `connections` and shuts the pool down afterwards. Unless
    /// `requireMigrated` is false (`migrate` itself), the database must carry every migration this binary has.
    package func withServices<T: Sendable>(connections: Int = 4, requireMigrated: Bool = true,
                                          _ body: (Services) async throws -> T) async throws -> T {
        try await Self.lendPool(settings.database, connections: connections, requireMigrated: requireMigrated) { pool in
            try await body(Services(assembly: self, pool: pool))
        }
    }

    /// The one pool lifetime: open, check migrations, lend, shut down whatever happens.
    static func lendPool<T: Sendable>(_ configuration: PostgresConfiguration, connections: Int, requireMigrated: Bool,
                                              _ body: (PostgresPool) async throws -> T) async throws -> T {
        let pool = PostgresPool(configuration: configuration, maxConnections: connections, logger: Logger(label: "messageai.postgres"))
        do {
            if requireMigrated { try await Migrator(pool: pool).requireMigrated() }
            let value = try await body(pool)
            await pool.shutdown()
            return value
        } catch {
            await pool.shutdown()
            throw error
        }
    }
}
