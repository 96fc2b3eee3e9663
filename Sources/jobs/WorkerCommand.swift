import AgentRuntime
import ArgumentParser
import CLISupport
import Extractors
import Foundation
import JobsKit
import Logging
import PromptKit
import ServiceLifecycle

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve on-demand requests from the job_requests table (extract a conversation, assist a user).",
        discussion: """
            The app asks for work by inserting a row: INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', ...) \
            or (kind, user_id) VALUES ('assist', ...). A trigger NOTIFYs the worker, which LISTENs and also polls every \
            --poll-seconds, so a lost notification only delays a request. Requests are claimed with leases (FOR UPDATE \
            SKIP LOCKED): run as many workers as you like. A failed attempt is retried after an exponential backoff; after \
            --max-attempts the request is marked failed with its error. Assist requests need an LLM (OPENAI_API_KEY or \
            OPENAI_BASE_URL); without one they fail at once saying so.

            On SIGTERM or SIGINT the worker claims nothing more, lets in-flight requests finish for up to --grace-seconds, \
            gives the rest back to the queue and exits 0. With --once it processes what is ready and exits (exit status 2 \
            if a request failed for good), which suits cron. Scheduling recipes: deploy/README.md.

            Examples:
              messageai-jobs worker
              messageai-jobs worker --concurrency 4 --poll-seconds 10
              messageai-jobs worker --once --json
              messageai-jobs request extract --conversation 00000000-de02-4000-8000-000000000003
            """
    )

    @Option(help: "Requests processed at once.")
    var concurrency: Int = 2

    @Option(help: "Seconds between polls for requests whose notification was missed.")
    var pollSeconds: Double = 5

    @Option(help: "On SIGTERM/SIGINT, seconds in-flight requests may take to finish before they are released.")
    var graceSeconds: Double = 30

    @Option(help: "Attempts before a request is marked failed.")
    var maxAttempts: Int = 3

    @Option(help: "Delay before the first retry, in seconds; it doubles with each attempt.")
    var backoffSeconds: Double = 30

    @Option(help: "Longest delay between retries, in seconds.")
    var maxBackoffSeconds: Double = 900

    @Option(help: "Seconds a claim lasts without renewal (a crashed worker's requests are taken over after this).")
    var leaseSeconds: Int = 600

    @Option(name: .customLong("features"), help: "Comma-separated features for extract requests (default: all five).")
    var featureList: String?
    var features: String { featureList ?? ExtractionFeature.allNames }

    @Flag(help: "Process the requests that are ready, then exit.")
    var once = false

    @OptionGroup var providerOptions: ProviderOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        guard pollSeconds > 0, pollSeconds <= 3600 else { throw ValidationError("--poll-seconds must be between 0 and 3600") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds must not be negative") }
        guard (1...100).contains(maxAttempts) else { throw ValidationError("--max-attempts must be between 1 and 100") }
        guard backoffSeconds >= 0, maxBackoffSeconds >= backoffSeconds else {
            throw ValidationError("--backoff-seconds must be >= 0 and --max-backoff-seconds at least as large")
        }
        guard (30...86_400).contains(leaseSeconds) else { throw ValidationError("--lease-seconds must be between 30 and 86400") }
        _ = try ExtractionFeature.parseList(features)
    }

    func run() async throws {
        output.bootstrap()
        var options = WorkerOptions()
        options.concurrency = concurrency
        options.poll = .milliseconds(Int64(pollSeconds * 1000))
        options.grace = .milliseconds(Int64(graceSeconds * 1000))
        options.maxAttempts = maxAttempts
        options.backoff = RetryBackoff(base: .seconds(backoffSeconds), max: .seconds(maxBackoffSeconds))
        options.lease = .seconds(leaseSeconds)
        options.once = once
        let engine = try providerOptions.engine()
        let llm = providerOptions.provider == .rules ? nil : try providerOptions.llm.configuration()
        if llm == nil {
            CLILogging.notice(providerOptions.provider == .rules
                ? "--provider rules: assist requests will fail (the assistant needs an LLM)."
                : "No LLM configured (OPENAI_API_KEY and OPENAI_BASE_URL are unset): assist requests will fail saying so.")
        }
        let prompts = llm == nil ? nil : try loadPrompts()
        let chosen = try ExtractionFeature.parseList(features)
        let summary = try await database.withPool(maxConnections: concurrency + 2) { pool in
            let assist = llm.flatMap { configuration in
                prompts.map {
                    var service = AssistService(pool: pool, client: OpenAIClient(configuration: configuration), prompts: $0,
                                                structuredOutput: configuration.structuredOutput,
                                                modelOverride: providerOptions.model ?? configuration.defaultModel)
                    service.configure(for: configuration)
                    return service
                }
            }
            let handler = JobRequestHandler(extract: ExtractService(pool: pool, engine: engine), features: chosen, assist: assist)
            let service = WorkerService(RequestWorker(pool: pool, handler: handler, options: options)) {
                CLILogging.notice("shutting down: finishing in-flight requests (up to \(graceSeconds) s), then exiting")
            }
            let group = ServiceGroup(configuration: .init(
                services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "messageai.worker.lifecycle")))
            try await group.run()
            guard let summary = await service.summary else { throw ExitCode.failure }
            return summary
        }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print("worker \(summary.owner): \(summary.claimed) claimed, \(summary.done) done, "
                          + "\(summary.retriesScheduled) retries scheduled, \(summary.failed) failed, \(summary.released.count) released "
                          + String(format: "(%.1f s, stopped: %@)", summary.seconds, summary.stopReason.rawValue))
        }
        if once, summary.failed > 0 { throw ExitCode(2) }
    }

    private func loadPrompts() throws -> PromptLibrary {
        do {
            return try ProviderFactory.library(promptsPath: providerOptions.prompts, versions: providerOptions.promptVersions)
        } catch let error as ExtractionError {
            throw error
        } catch {
            throw ExtractionError.promptProblem("the prompts do not load:\n\(error)")
        }
    }
}
