import AgentRuntime
import ArgumentParser
import Core
import Extractors
import Foundation
import JobsCLI
import JobsKit
import Postgres
import PromptKit
import Tools

struct AssistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist",
        abstract: "The proactive assistant: for one user (--user), or the proactive pass over many (--all, --changed).",
        discussion: """
            Findings are computed by code, with no LLM: schedule conflicts (overlapping events, or back-to-back events \
            at different places with less than --travel-gap-minutes between them, in the user's time zone, all-day \
            events and DST handled), RSVPs not answered with the reply-by date or the event within 7 days, deadlines \
            in the next 7 days not done (MESSAGEAI_DEADLINE_DAYS), urgent and high priority messages about today or \
            tomorrow that no deadline or RSVP of the user rests on, reminders due within 24 hours. Each cites the rows it rests on and is kept in \
            assistant_findings, one row per user, kind and subject: the next pass updates it, resolves it when its \
            cause goes away, and never raises one the user dismissed unless its subject changed.

            With an LLM (OPENAI_API_KEY or OPENAI_BASE_URL) each user with open findings also gets one bounded \
            tool-calling run (at most --max-steps model calls, a token budget, a time limit, at most 3 reminders) \
            that ranks and explains the findings and suggests options; the answer's schema is in its first request. Items of its answer that code did not find, or \
            that cite ids no tool returned, are dropped and reported. Its answer and tokens go to assistant_runs, \
            each step to agent_traces. Without an LLM the findings keep their template suggestions.

            --show prints what the user sees: the open findings in the assistant's rank with its notes, then the \
            last run's summary, suggested actions and the reminders it created (--json: the same, as one object).

            --user needs an LLM. --all and --changed run the pass alone (the nightly scan runs it after extraction), \
            sharded and leased like the scan: several processes may run at once.

            Examples:
              messageai-jobs assist --user 00000000-de01-4000-8000-000000000001
              messageai-jobs assist --show --user demo
              messageai-jobs assist --all --provider rules
              messageai-jobs assist --changed --shard 1/4
            """
    )

    @Option(help: "One user's id (a UUID or its first characters, at least 4; or 'demo' for the demo's parent): refresh their findings and run the assistant on them (needs an LLM).")
    var user: UserArgument?

    @Flag(help: "With --user: only print what the user sees, as stored (no pass, no LLM): the open findings in the assistant's rank with its notes, its last summary, suggested actions and the reminders it created.")
    var show = false

    @Flag(help: "Run the proactive pass for every user.")
    var all = false

    @Flag(help: "Run the proactive pass for users whose rows changed since the pass last saw them, plus users with something coming up.")
    var changed = false

    @Option(help: "auto (an LLM when one is configured, else templates), openai or rules. --user needs an LLM.")
    var provider: ProviderChoice = .auto

    @Option(help: "Most model calls in one user's run; the last is made with tool_choice none so the model must answer.")
    var maxSteps: Int = 5

    @Option(help: "Model (default: the assistant prompt's model, or $OPENAI_MODEL).")
    var model: String?

    @OptionGroup var promptOptions: PromptOptions
    var prompts: String? { promptOptions.prompts }
    var promptVersions: [String] { promptOptions.promptVersions }

    @Option(help: "Minutes needed to travel between back-to-back events at different places.")
    var travelGapMinutes: Int = Int(ProactiveOptions.defaultTravelGap / 60)

    @Option(help: "Assistant runs at once (LLM).")
    var concurrency: Int = 4

    @Option(help: "Process only shard i of N (i/N) of the users, or auto/N to read i from JOB_COMPLETION_INDEX.")
    var shard: String = "0/1"

    @Option(help: "Seconds a claim on a user's assistant run lasts before another process may take it over.")
    var leaseSeconds: Int = 600

    @Option(help: "Stop after this many users.")
    var limit: Int?

    @Option(help: ArgumentHelp(
        "tool_choice of the assistant's first model call: auto (the model decides), required (it must look something up before it answers; for small models that answer without looking), none, or a tool's name (that tool first, e.g. get_upcoming_events).",
        valueName: FirstToolChoice.valueName))
    var firstToolChoice: FirstToolChoice = .auto

    @OptionGroup var llm: LLMOptions
    @OptionGroup var zones: TimeZoneOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        let modes = [user != nil, all, changed].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("give exactly one of --user, --all, --changed") }
        guard !show || user != nil else { throw ValidationError("--show needs --user") }
        guard (1...20).contains(maxSteps) else { throw ValidationError("--max-steps must be between 1 and 20") }
        guard (0...240).contains(travelGapMinutes) else { throw ValidationError("--travel-gap-minutes must be between 0 and 240") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        guard leaseSeconds >= 30 else { throw ValidationError("--lease-seconds must be at least 30") }
        _ = try Settings.commandShard(shard)
        try firstToolChoice.validate()
    }

    func run() async throws {
        output.bootstrap()
        let assembly = try Assembly.command {
            $0.provider = provider
            $0.model = model
            $0.prompts = prompts
            $0.promptVersions = promptVersions
            $0.take(llm)
            $0.take(zones)
            $0.take(database)
        }
        if let user, show { return try await showFindings(try await user.resolve(assembly), assembly: assembly) }
        if let user { return try await runOne(user, assembly: assembly) }
        var options = ProactivePass.Options()
        options.concurrency = concurrency
        (options.shardIndex, options.shardCount) = try assembly.settings.shard(shard)
        options.lease = .seconds(leaseSeconds)
        options.proactive.travelGap = TimeInterval(travelGapMinutes * 60)
        options.limit = limit
        let summary = try await assembly.withServices(connections: concurrency + 1) { services in
            try await services.proactivePass(options, maxSteps: maxSteps).run(all ? .all : .changed)
        }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print(ProactiveReport.text(summary))
        }
        if summary.usersFailed > 0 || summary.narrationFailed > 0 { throw ExitCode(ExitStatus.someFailed) }
    }

    private func showFindings(_ id: UUID, assembly: Assembly) async throws {
        let zones = assembly.settings.zones
        let view = try await assembly.withServices(connections: 1) { try await AssistantView.load(id, zones: zones, pool: $0.pool) }
        guard let view else { throw JobsError.notFound("no user with id \(id.uuidString.lowercased())") }
        if output.json { return try Console.printJSON(view) }
        Console.print(view.text)
    }

    private func runOne(_ user: UserArgument, assembly: Assembly) async throws {
        guard provider != .rules else {
            throw ValidationError("--user runs the LLM assistant; offline, `assist --all --provider rules` computes every user's findings "
                                  + "and `assist --show --user ID` prints them")
        }
        // No LLM configured: say so before connecting to anything, with what runs without one.
        guard assembly.settings.llm != nil else { throw Self.noLLMForUser }
        let (id, summary, outage) = try await assembly.withServices { services -> (UUID, AssistService.Summary, CircuitBreaker.Outage?) in
            let id = try await user.resolve(pool: services.pool)
            guard var service = try services.assistant(provider == .auto ? .openai : provider, maxSteps: maxSteps) else { throw Self.noLLMForUser }
            service.firstToolChoice = firstToolChoice.toolChoice
            service.proactive.travelGap = TimeInterval(travelGapMinutes * 60)
            let summary = try await service.run(userID: id)
            return (id, summary, summary.findings == nil ? service.client.circuitBreaker?.outage : nil)
        }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print(AssistReport.text(summary))
        }
        if summary.findings == nil {
            // The report went to stdout; the reason for the failing exit status belongs on stderr too.
            Console.error("assist: no valid answer for user \(id.uuidString.lowercased()): \(summary.stopReason) (job_runs \(summary.runID.uuidString.lowercased()))")
            if let outage {
                Console.error("OUTAGE: \(outage)")
                throw ExitCode(ExitStatus.outage)
            }
            throw ExitCode(ExitStatus.someFailed)
        }
    }

    /// `assist --user` without a model: what runs offline instead (`--provider rules` is refused for `--user`).
    static let noLLMForUser = ProviderError.noLLM(
        otherwise: "or, without an LLM, compute every user's findings with `messageai-jobs assist --all --provider rules` "
            + "and print one user's with `messageai-jobs assist --show --user ID`")
}
