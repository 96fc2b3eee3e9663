import TestSupport
import ArgumentParser
import Core
import Extractors
import Foundation
import Bench
import JobsKit
import JobsCLI

/// The benchmarks, a separate executable so that their fake servers and seed-design prompts never ship in
/// `messageai-jobs`.
@main
struct MessageAIBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messageai-bench",
        abstract: "MessageAI benchmarks: a reproducible scan workload, the scan, the agent, tokens and the proactive pass against fake models.",
        subcommands: [BenchWorkloadCommand.self, BenchAlignCommand.self, BenchScanCommand.self, BenchServeCommand.self, BenchAgentCommand.self, BenchTokensCommand.self,
                      BenchProactiveCommand.self]
    )

    /// ArgumentParser's main, with the environment checked once first (`BenchEnvironment.problem`); help is printed
    /// whatever it holds.
    static func main() async {
        do {
            var command = try parseAsRoot()
            let help = CommandLine.arguments.dropFirst().contains { ["--help", "-h", "help"].contains($0) }
            if !help, let problem = BenchEnvironment.problem { throw problem }
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

struct BenchWorkloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workload",
        abstract: "Fill the database with a generated, reproducible scan workload.",
        discussion: """
            Parent-group chats (3 to 8 people) and 1:1 chats with D days of history; about a tenth of the \
            conversations get about 20 new messages on the last day. Messages carry real dates, times, RSVPs and \
            deadlines. Watermarks are set so that only the last day is new to the next scan. The same --seed \
            and --now give the same rows (ids included); loading them again inserts nothing new.

            Example: messageai-bench workload --conversations 2000 --days 7 --seed 42
            """
    )

    @OptionGroup var workload: WorkloadOptions

    @Option(help: "End of the last day, ISO 8601 (default: now).")
    var now: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard workload.conversations >= 1, (1...365).contains(workload.days) else {
            throw ValidationError("--conversations must be at least 1 and --days between 1 and 365")
        }
    }

    func run() async throws {
        output.bootstrap()
        var end = Date()
        if let now {
            guard let parsed = ISO8601Instant.parse(now) else { throw ValidationError("--now '\(now)' is not an ISO 8601 timestamp such as 2026-03-04T12:00:00Z") }
            end = parsed
        }
        let generated = try WorkloadGenerator.make(WorkloadSpec(conversations: workload.conversations, days: workload.days, seed: workload.seed, now: end))
        let report = try await database.withPool(environment: BenchEnvironment.values, maxConnections: 1) { pool in try await WorkloadLoader(pool: pool).load(generated) }
        if output.json {
            try Console.printJSON(report)
        } else {
            Console.print(String(
                format: "Workload (seed %llu): %d users, %d conversations, %d messages; %d conversations with %d new messages on the last day. Loaded in %.2f s.",
                workload.seed, report.users, report.conversations, report.messages, report.activeConversations, report.newMessages, report.seconds))
        }
    }
}

struct BenchAlignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "The evidence check's alignment cost per item at the p50 and p99 message sizes of the generated workload.",
        discussion: """
            Generates the workload `workload` loads (same options, no database) and aligns, for the messages at the \
            p50 and p99 of its sizes, a misquoted copy of each with it, as the evidence check does for a quote that \
            is not verbatim. Example: messageai-bench align --conversations 2000 --days 7 --seed 42
            """)

    @Option(help: "Conversations in the workload.")
    var conversations = 2000

    @Option(help: "Days of history.")
    var days = 7

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: "Alignments timed per size.")
    var repeats = 2000

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard conversations >= 1, (1...365).contains(days), repeats >= 1 else {
            throw ValidationError("--conversations and --repeats must be at least 1 and --days between 1 and 365")
        }
    }

    func run() async throws {
        output.bootstrap()
        let workload = try WorkloadGenerator.make(WorkloadSpec(conversations: conversations, days: days, seed: seed, now: Date()))
        let report = AlignmentBenchmark.run(workload, repeats: repeats)
        if output.json { try Console.printJSON(report) } else { Console.print(report.line) }
    }
}

struct BenchScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Measure the scan against an in-process fake OpenAI-compatible server at a fixed latency.",
        discussion: """
            Creates a scratch schema in the database (dropped afterwards), loads a generated workload, and runs the \
            real scan with the openai provider against a loopback fake that answers after --latency-ms. Then runs \
            again at zero latency to show the local overhead per conversation. Prints conversations per second, the \
            bound concurrency / latency, CPU time per request and per conversation (getrusage: user + system of the \
            whole process, fake server included; and without the fake server's threads, which read their own thread \
            clocks), requests, tokens and peak memory. The bound C/latency assumes whole waves: scan a multiple of C \
            conversations (a tenth of --conversations), many waves long, to measure against it. See benchmarks/README.md.

            Example: messageai-bench scan --conversations 2000 --latency-ms 800 --concurrency 8
            """
    )

    @Option(help: "Conversations in the workload (about a tenth are scanned).")
    var conversations: Int

    @Option(help: "Days of history in the workload.")
    var days: Int = 7

    @Option(help: "Seed of the workload generator.")
    var seed: UInt64 = 1

    @Option(help: "Latency of every fake answer, in milliseconds.")
    var latencyMs: Int = 500

    @Option(help: "Conversations processed at once.")
    var concurrency: Int = 4

    @Option(help: "Folder of YAML prompts.")
    var prompts: String = "prompts"

    @Flag(help: "Skip the second run at zero latency.")
    var noOverhead = false

    @Option(help: "Replace the HTTP transport's limit of simultaneous connections per host, for this benchmark only.")
    var maxConnectionsPerHost: Int?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative") }
        guard conversations >= 1, (1...365).contains(days) else { throw ValidationError("--conversations must be at least 1 and --days between 1 and 365") }
        if let maxConnectionsPerHost, maxConnectionsPerHost < 1 { throw ValidationError("--max-connections-per-host must be at least 1") }
    }

    func run() async throws {
        output.bootstrap()
        var options = ScanBenchmark.Options(conversations: conversations)
        options.days = days
        options.seed = seed
        options.latency = .milliseconds(latencyMs)
        options.concurrency = concurrency
        options.promptsPath = prompts
        options.measureOverhead = !noOverhead
        options.maxConnectionsPerHost = maxConnectionsPerHost
        let quiet = output.json
        let result = try await ScanBenchmark(database: try database.configuration(BenchEnvironment.values), environment: BenchEnvironment.values).run(options) { line in
            if !quiet { Console.error(line) }
        }
        if output.json {
            try Console.printJSON(result)
        } else {
            Console.print(Self.text(result))
        }
    }

    static func text(_ r: ScanBenchmark.Result) -> String {
        var lines = [
            "Workload: \(r.conversations) conversations, \(r.days) days, seed \(r.seed); \(r.run.messagesLoaded) messages loaded in "
                + String(format: "%.2f s", r.run.loadSeconds),
            "Scan at \(r.latencyMs) ms, concurrency \(r.concurrency), "
                + (r.maxConnectionsPerHost.map { "\($0) connections per host" } ?? "production transport")
                + String(format: ": %d conversations in %.2f s = %.1f conversations/s", r.run.scanned, r.run.seconds, r.run.conversationsPerSecond)
                + (r.boundPerSecond.map { String(format: " (bound C/latency = %.1f/s", $0) } ?? "")
                + (r.runBoundPerSecond.map { String(format: "; for %d conversations in whole waves of %d: %.1f/s)", r.run.scanned, r.concurrency, $0) } ?? ""),
            String(format: "CPU during the scan, whole process: %.2f s (%.0f%% of one core) = %.2f ms per request, %.2f ms per conversation",
                   r.run.cpuSeconds, r.run.seconds > 0 ? 100 * r.run.cpuSeconds / r.run.seconds : 0,
                   r.run.cpuMsPerRequest ?? 0, r.run.cpuMsPerConversation ?? 0),
            String(format: "CPU during the scan without the in-process fake server (its threads: %.2f s): %.2f ms per request, %.2f ms per conversation",
                   r.run.serverCPUSeconds ?? 0, r.run.scanCPUMsPerRequest ?? 0, r.run.scanCPUMsPerConversation ?? 0)
                + (r.run.eventLoopCPUMsPerRequest.map { String(format: "; of it the HTTP client's event-loop thread: %.2f ms per request", $0) } ?? ""),
            "Requests: \(r.run.requests); tokens: \(r.run.promptTokens) prompt + \(r.run.completionTokens) completion (fake server's bytes/4 estimate)",
        ]
        if let overhead = r.overheadMsPerConversation, let zero = r.zeroLatency {
            lines.append(String(format: "Local overhead at zero latency: %.1f ms per conversation (%d in %.2f s, %.1f/s); CPU %.2f ms per conversation",
                                overhead, zero.scanned, zero.seconds, zero.conversationsPerSecond, zero.cpuMsPerConversation ?? 0))
        }
        lines.append(r.peakMemoryMiB.map { String(format: "Peak memory (VmHWM): %.1f MiB", $0) } ?? "Peak memory: unavailable (no /proc)")
        return lines.joined(separator: "\n")
    }
}
