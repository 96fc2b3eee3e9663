import AgentRuntime
package import Extractors
package import Postgres
package import JobsKit

/// The services of one command's run, all on the pool the assembly lends (`Assembly.withServices`), all with the
/// assembly's settings (the time zones, the run lease), registry and rate-limited model client.
package struct Services: Sendable {
    package let assembly: Assembly
    package let pool: PostgresPool

    package init(assembly: Assembly, pool: PostgresPool) {
        self.assembly = assembly
        self.pool = pool
    }

    var settings: Settings { assembly.settings }

    /// `extract`: one conversation, in the deployment's time zone.
    package func extract() throws -> ExtractService {
        var service = ExtractService(pool: pool, engine: try assembly.engine())
        service.reader.zones = settings.zones
        service.runLease = settings.runLease
        return service
    }

    /// The proactive pass (`assist --all/--changed`, and the scan's after extraction), with the assistant when an
    /// LLM is configured.
    package func proactivePass(_ options: ProactivePass.Options, maxSteps: Int = 5) throws -> ProactivePass {
        var options = options
        options.proactive.zones = settings.zones
        options.proactive.deadlineDays = settings.deadlineDays
        var pass = ProactivePass(pool: pool, options: options, assistant: try assembly.assistant(pool: pool, maxSteps: maxSteps))
        pass.runLease = settings.runLease
        return pass
    }

    /// One user's assistant run (`assist --user`): nil when the settings come to the rule-based provider.
    package func assistant(_ choice: ProviderChoice? = nil, maxSteps: Int = 5) throws -> AssistService? {
        try assembly.assistant(pool: pool, choice, maxSteps: maxSteps)
    }

    /// The nightly scan; with `assist` its proactive pass runs after extraction on the scan's shard, concurrency and
    /// lease. Extraction and the pass share the assembly's one rate limiter.
    package func scan(_ options: ScanOptions, assist: Bool) throws -> ScanService {
        var options = options
        options.zones = settings.zones
        var service = ScanService(pool: pool, engine: try assembly.engine(), options: options)
        service.runLease = settings.runLease
        if assist {
            var pass = ProactivePass.Options()
            pass.concurrency = options.concurrency
            (pass.shardIndex, pass.shardCount) = (options.shardIndex, options.shardCount)
            pass.lease = options.lease
            service.proactive = try proactivePass(pass)
        }
        return service
    }

    /// `scan --batch`: the scan's claims and requests, submitted as one OpenAI batch.
    package func batchSubmit(_ scan: ScanOptions) throws -> BatchSubmitService {
        var options = BatchOptions()
        options.scan = scan
        options.scan.zones = settings.zones
        let configuration = try assembly.batchConfiguration()
        var service = BatchSubmitService(pool: pool, engine: try assembly.engine(.openai), client: OpenAIBatchClient(configuration: configuration),
                                         options: options)
        service.runLease = settings.runLease
        return service
    }

    /// `batch collect`: decodes stored answers only, so its engine's provider is never asked anything.
    package func batchCollect() throws -> BatchCollectService {
        let configuration = try assembly.batchConfiguration()
        let engine = try ExtractionEngine(prompts: try assembly.prompts(), provider: RulesAnswerProvider(), registry: assembly.registry)
        var service = BatchCollectService(pool: pool, engine: engine, client: OpenAIBatchClient(configuration: configuration))
        service.zones = settings.zones
        service.runLease = settings.runLease
        return service
    }

    package var batchStatus: BatchStatusService { BatchStatusService(pool: pool) }

    /// The on-demand worker: extract requests through the engine, assist requests through the assistant (none
    /// without an LLM: they then fail saying so).
    package func worker(_ options: WorkerOptions, features: [ExtractionFeature]) throws -> RequestWorker {
        let handler = JobRequestHandler(extract: try extract(), features: features, assist: try assembly.assistant(pool: pool))
        return RequestWorker(pool: pool, handler: handler, options: options)
    }

    package var requestQueue: JobRequestQueue { JobRequestQueue(pool: pool) }
    package var requestAdmin: JobRequestAdmin { JobRequestAdmin(pool: pool) }
    package var quarantine: Quarantine { Quarantine(pool: pool) }
    package var runHistory: RunHistory { RunHistory(pool: pool) }
    package var parentView: ParentView { ParentView(pool: pool) }
    package var migrator: Migrator { Migrator(pool: pool) }
    package var demoLoader: DemoLoader { DemoLoader(pool: pool) }
}
