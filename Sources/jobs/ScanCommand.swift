import AgentRuntime
import ArgumentParser
import Core
import Extractors
import Foundation
import JobsCLI
import JobsKit
import Logging
import ServiceLifecycle

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "The nightly scan: extract what is new in every conversation.",
        discussion: """
            Finds conversations with messages newer than their watermark and sends the model only the new messages \
            plus a window of earlier context: one request per conversation window for all the features \
            (prompts/combined.yaml), or with --per-feature (or MESSAGEAI_REQUEST_MODE=per-feature) one per feature. Each conversation's rows and its advanced watermark are committed in one \
            transaction, so a crash loses nothing committed and repeats nothing committed. Work is claimed with leases \
            (FOR UPDATE SKIP LOCKED): several scans may run at once, on one machine or many. A conversation that fails \
            is recorded and retried by the next scan; the exit status is 2 if any failed, or if the proactive \
            pass failed for any user (the run is then partial, and the summary's first line says so). One that fails the same \
            way on --quarantine-after scans in a row (default 3) is quarantined: later scans pass it over until \
            --retry-quarantined. A conversation whose requests the model server fails (5xx, timeouts) while it answers \
            others counts, whatever the failure was called; an outage (the server answering no one, the database away) \
            does not. Conversations are claimed least recently attempted first, so last night's failures come last.

            On SIGTERM or SIGINT the scan claims nothing more, finishes the conversations in flight, marks its run \
            partial and exits 2 (the rest is left for the next scan); nothing commits after it says it stopped.

            When the model server is down (5 requests in a row refused or reset; or, with no answer in between, 5xx \
            or timeouts for 20 different requests or for 30 s), its circuit \
            breaker opens: the scan stops asking, finishes what it has, gives the other conversations back untouched \
            (their failure counts and quarantine unchanged), marks its run failed with the outage named and exits 75 \
            (not 2, whatever else failed); \
            the next scan after the server returns takes them all. A database that stays unreachable ends it the same way.

            Then the proactive pass (unless --no-assist) looks at every user whose rows changed and every user with \
            something coming up: schedule conflicts, unanswered RSVPs, deadlines in the coming week (MESSAGEAI_DEADLINE_DAYS, \
            default 7), urgent and high priority messages of today and tomorrow, reminders due. \
            Findings are computed by code and kept in assistant_findings; with an LLM the assistant also ranks and \
            explains them (see `assist --help`).

            The text summary on stdout lists what was found in the first \(ScanReport.conversationsListed) conversations \
            (at most \(ScanReport.itemsPerConversation) items each) and the open findings of the first 5 users (at most \
            \(ProactiveReport.findingsPerUser) each), and says how many were left out; --json has every total. At \
            LOG_LEVEL=info every conversation scanned logs one line (counts, tokens, time) and the run ends with one \
            "scan finished" line carrying its figures as fields; LOG_FORMAT=json writes each log line as a JSON object.

            Examples:
              messageai-jobs scan
              messageai-jobs scan --concurrency 8 --shard 2/4
              messageai-jobs scan --shard auto/4   # i from JOB_COMPLETION_INDEX
              messageai-jobs scan --per-feature    # five requests per window, one per feature
            """
    )

    @Option(help: "Conversations with the model at once; each worker also writes the conversation before and reads the one after meanwhile.")
    var concurrency: Int = 4

    @Option(help: "Database connections (default: concurrency + 1, at most 9: workers use the database briefly, and the server's connection limit is shared).")
    var dbConnections: Int?

    @Option(help: "Process only shard i of N (i/N), or auto/N to read i from JOB_COMPLETION_INDEX.")
    var shard: String = "0/1"

    @Option(name: .customLong("features"), help: ExtractionFeature.listHelp())
    var featureList: String?
    var features: String { featureList ?? ExtractionFeature.allNames }

    @Option(help: "Earlier messages sent along with the new ones, as context.")
    var contextMessages: Int = ConversationReader.defaultContextMessages

    @Option(help: "Seconds a claim on a conversation lasts before another scanner may take it over.")
    var leaseSeconds: Int = 600

    @Option(help: "Stop after this many conversations.")
    var limit: Int?

    @Option(help: "Quarantine a conversation that fails the same way on this many scans in a row (0: never). A quarantined conversation is passed over, listed in the summary and in scan_watermarks (quarantined_at, quarantine_reason).")
    var quarantineAfter: Int = 3

    @Flag(help: "Take this shard's quarantined conversations out of quarantine first and try them again (after fixing what failed them).")
    var retryQuarantined = false

    @Flag(help: "Send every new message to the model, chatter included (the pre-filter holds back only small talk and emoji-only messages).")
    var noPrefilter = false

    @Flag(help: "Skip the proactive pass (findings for changed users and users with something coming up) after extraction.")
    var noAssist = false

    @Flag(help: "Submit the requests as one OpenAI batch instead (collect with `batch collect`).")
    var batch = false

    @Option(help: "Requests per minute the account allows (default: $OPENAI_RPM). The openai provider also slows down on x-ratelimit headers.")
    var rpm: Int?

    @Option(help: "Tokens per minute the account allows (default: $OPENAI_TPM).")
    var tpm: Int?

    @OptionGroup var providerOptions: ProviderOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var zones: TimeZoneOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        if let dbConnections, !(1...200).contains(dbConnections) { throw ValidationError("--db-connections must be between 1 and 200") }
        guard (30...86_400).contains(leaseSeconds) else { throw ValidationError("--lease-seconds must be between 30 and 86400") }
        guard (0...500).contains(contextMessages) else { throw ValidationError("--context-messages must be between 0 and 500") }
        guard (0...1000).contains(quarantineAfter) else { throw ValidationError("--quarantine-after must be between 0 and 1000") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        _ = try Settings.commandShard(shard)
        _ = try ExtractionFeature.parseList(features)
        do {
            _ = try RateLimits().overriding(requestsPerMinute: rpm, tokensPerMinute: tpm)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        output.bootstrap()
        let assembly = try Assembly.command {
            $0.take(providerOptions)
            $0.take(database)
            $0.take(zones)
            $0.rpm = rpm
            $0.tpm = tpm
        }
        var options = ScanOptions()
        options.concurrency = concurrency
        (options.shardIndex, options.shardCount) = try assembly.settings.shard(shard)
        options.features = try ExtractionFeature.parseList(features)
        options.contextMessages = contextMessages
        options.lease = .seconds(leaseSeconds)
        options.limit = limit
        options.preFilter = !noPrefilter
        options.quarantineAfter = quarantineAfter
        options.retryQuarantined = retryQuarantined
        if batch { return try await submitBatch(options, assembly: assembly) }
        let showProgress = Console.isTerminal && !output.json
        let connections = dbConnections ?? ScanOptions.defaultDatabaseConnections(concurrency: concurrency)
        let summary = try await assembly.withServices(connections: connections) { services in
            let service = try services.scan(options, assist: !noAssist)
            let job = ScanJob(service, now: await DatabaseClock.now(services.pool), progress: { done, failed, total in
                if showProgress { Console.progress("scan: \(done)/\(total) conversations" + (failed > 0 ? ", \(failed) failed" : "")) }
            }, onShutdown: {
                CLILogging.notice("shutting down: claiming nothing more, finishing the conversations in flight, then exiting")
            })
            let group = ServiceGroup(configuration: .init(
                services: [.init(service: job, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "messageai.scan.lifecycle")))
            try await group.run()
            guard let summary = await job.summary else { throw ExitCode.failure }
            return summary
        }
        if showProgress { Console.progressDone() }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print(ScanReport.text(summary))
            if let pass = summary.proactive { Console.print("\n" + ProactiveReport.text(pass)) }
        }
        if summary.runRecordError != nil { throw ExitCode.failure }
        if summary.outage != nil { throw ExitCode(ExitStatus.outage) }
        if summary.failed > 0 || summary.stoppedEarly != nil || summary.proactive?.failed == true { throw ExitCode(ExitStatus.someFailed) }
    }

    /// `scan --batch`: the same claims and requests, submitted as one OpenAI batch (collected by `batch collect`).
    private func submitBatch(_ options: ScanOptions, assembly: Assembly) async throws {
        guard providerOptions.provider != .rules else {
            throw ValidationError("--batch sends requests to OpenAI's Batch API: use --provider openai (or auto) with OPENAI_API_KEY set")
        }
        let summary = try await assembly.withServices(connections: 2) { try await $0.batchSubmit(options).run() }
        if output.json { try Console.printJSON(summary) } else { Console.print(BatchReport.text(summary)) }
        if summary.failed > 0 { throw ExitCode(ExitStatus.someFailed) }
    }
}
