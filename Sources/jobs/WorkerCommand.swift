import AgentRuntime
import ArgumentParser
import Core
import Extractors
import Foundation
import JobsCLI
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
            OPENAI_BASE_URL); without one they fail at once saying so. Extract requests make one combined request per \
            conversation window, like scan (--per-feature or MESSAGEAI_REQUEST_MODE=per-feature: one per feature). When \
            the model server is down (its circuit breaker open: 5 requests in a row refused or reset, or no answer while 20 \
            requests failed with 5xx or timeouts, or for 30 s), a request is given back \
            to the queue with its attempt not counted, and nothing is claimed until the breaker's next probe is due (--once \
            then exits 75). The same work is never pending twice: an INSERT of work that already waits is skipped.

            On SIGTERM or SIGINT the worker claims nothing more, lets in-flight requests finish for up to --grace-seconds, \
            gives the rest back to the queue and exits 0. With --once it processes what is ready and exits (exit status 2 \
            if a request failed for good), which suits cron. Scheduling recipes: deploy/README.md.

            With --metrics-port the worker also serves HTTP on --metrics-host (default 127.0.0.1; 0.0.0.0 in a container \
            whose probes or Prometheus reach the pod's IP): GET /healthz answers 200 while the database connection and the \
            LISTEN channel are alive and 503 with the reason otherwise; /readyz also waits for the first claim pass and \
            turns 503 while shutting down; /metrics is Prometheus text (requests by kind and result, latency histogram, \
            model tokens and cost, runs whose cost is unknown, lease renewals, queue depth, quarantined conversations, \
            and the model server's health: calls by outcome (ok, http_500, timeout, ...), their latency, the breaker's state). \
            deploy/README.md lists them.

            Examples:
              messageai-jobs worker
              messageai-jobs worker --concurrency 4 --poll-seconds 10
              messageai-jobs worker --once --json
              messageai-jobs worker --metrics-port 9464 --metrics-host 0.0.0.0
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

    @Option(name: .customLong("features"), help: ExtractionFeature.listHelp("Comma-separated features for extract requests"))
    var featureList: String?
    var features: String { featureList ?? ExtractionFeature.allNames }

    @Flag(help: "Process the requests that are ready, then exit.")
    var once = false

    @Option(help: "Serve /healthz, /readyz and /metrics on this TCP port (off unless set).")
    var metricsPort: Int?

    @Option(help: "Address the metrics port listens on.")
    var metricsHost: String = "127.0.0.1"

    @OptionGroup var providerOptions: ProviderOptions
    @OptionGroup var zones: TimeZoneOptions
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
        if let metricsPort, !(0...65_535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be between 0 and 65535")
        }
    }

    func run() async throws {
        output.bootstrap()
        var options = WorkerOptions()
        options.concurrency = concurrency
        options.poll = .milliseconds(Int64(pollSeconds * 1000))
        options.grace = .milliseconds(Int64(graceSeconds * 1000))
        options.retry.maxAttempts = maxAttempts
        options.retry.baseDelay = .seconds(backoffSeconds)
        options.retry.maxDelay = .seconds(maxBackoffSeconds)
        options.lease = .seconds(leaseSeconds)
        options.once = once
        let assembly = try Assembly.command {
            $0.take(providerOptions)
            $0.take(zones)
            $0.take(database)
        }
        if providerOptions.provider == .rules || assembly.settings.llm == nil {
            CLILogging.notice(providerOptions.provider == .rules
                ? "--provider rules: assist requests will fail (the assistant needs an LLM)."
                : "No LLM configured (OPENAI_API_KEY and OPENAI_BASE_URL are unset): assist requests will fail saying so.")
        }
        let chosen = try ExtractionFeature.parseList(features)
        // Bootstrapped before the worker records anything; without --metrics-port every record is a no-op.
        let exposition = metricsPort.map { _ in PrometheusBootstrap.bootstrap() }
        let summary = try await assembly.withServices(connections: concurrency + 2) { built in
            let worker = try built.worker(options, features: chosen)
            let service = WorkerService(worker) {
                CLILogging.notice("shutting down: finishing in-flight requests (up to \(graceSeconds) s), then exiting")
            }
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
            if let exposition, let metricsPort {
                let endpoint = try await Self.endpoint(host: metricsHost, port: metricsPort, worker: worker, exposition: exposition,
                                                       modelServer: assembly.settings.llm?.baseURL)
                CLILogging.notice("serving /healthz, /readyz and /metrics on http://\(endpoint.host):\(endpoint.port)")
                services.append(.init(service: endpoint))
            }
            // Listed last, so on SIGTERM the worker drains first while the endpoint still answers, then the endpoint stops.
            services.append(.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup))
            let group = ServiceGroup(configuration: .init(
                services: services,
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
                          + "\(summary.retriesScheduled) retries scheduled, \(summary.failed) failed, \(summary.released.count) released"
                          + (summary.deferred > 0 ? ", \(summary.deferred) deferred (the model server was unavailable)" : "")
                          + String(format: " (%.1f s; %@)", summary.seconds,
                                   summary.stopReason == .stopped ? "stopped on request" : "nothing more was ready"))
        }
        if once, summary.deferred > 0 { throw ExitCode(ExitStatus.outage) }
        if once, summary.failed > 0 { throw ExitCode(ExitStatus.someFailed) }
    }

    /// The HTTP endpoint, bound now so a taken port fails the command before the worker starts.
    /// `modelServer`: the model server whose breaker state `/metrics` samples (nil without an LLM).
    private static func endpoint(host: String, port: Int, worker: RequestWorker, exposition: PrometheusExposition,
                                 modelServer: URL?) async throws -> MetricsServer {
        let health = worker.health
        let routes = MetricsRoutes(
            healthz: {
                let report = await health.report()
                return ProbeAnswer(ok: report.live, reasons: report.reasons)
            },
            readyz: {
                let report = await health.report()
                return ProbeAnswer(ok: report.ready, reasons: report.reasons)
            },
            metrics: {
                // Queue depth is counted at scrape time; a failed count leaves the last sample (healthz reports the database).
                try? await worker.metrics.sampleQueueDepth(pool: worker.pool)
                try? await worker.metrics.sampleQuarantine(pool: worker.pool)
                if let modelServer { ModelServerMetrics().sampleBreaker(modelServer) }
                return exposition.render()
            })
        return try await MetricsServer.bind(host: host, port: port, routes: routes, logger: Logger(label: "messageai.worker.metrics"))
    }
}
