import ArgumentParser
import Chrono
import Extractors
import Foundation
import Bench
import CLISupport
import JobsKit

struct BenchTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Tokens of one night: our nightly scan against the seed's design, on the same generated data.",
        discussion: """
            Creates a scratch schema in the database at DATABASE_URL (use a scratch database; the schema is dropped \
            afterwards and nothing else is touched), loads a generated workload, and runs the real nightly scan with \
            the openai provider against an in-process scripted server. Then sends the seed's design's requests for \
            the same data to the same server: every feature re-sends its whole window every night for every \
            conversation (calendar and decisions 7 days, priority 1 day, RSVPs 30 days, deadlines 14 days), RSVPs \
            and deadlines once per participant, with the seed's prompts and message formats. Both sides are billed \
            by the server's one rule: ceil(UTF-8 bytes / 4). Also prints the conservative count (every byte of our request \
            bodies against only the seed's message lines), where our bytes go, the prompt tokens OpenAI's prefix cache \
            would serve (emulated: 128-token blocks from 1,024 tokens on), and each night's money at the list prices \
            of <prompts>/pricing/openai.yaml (ours at the prompts' model, the seed's at gpt-4o and at ours). \
            See benchmarks/RESULTS.md.

            Example: DATABASE_URL=postgresql://postgres@127.0.0.1:54329/messageai_bench messageai-bench tokens --conversations 2000
            """
    )

    @Option(help: "Conversations in the workload (about a tenth have new messages on the last day).")
    var conversations: Int = 2000

    @Option(help: "Days of history (30 fills the seed's longest window).")
    var days: Int = 30

    @Option(help: "Seed of the workload generator.")
    var seed: UInt64 = 1

    @Option(help: "End of the last day, ISO 8601 (default: now).")
    var now: String?

    @Option(help: "Requests in flight at once, on each side.")
    var concurrency: Int = 8

    @Option(help: "Folder of YAML prompts.")
    var prompts: String = "prompts"

    @Flag(help: "Also send the seed's requests whose window is empty (its functions would; skipped by default, in the seed's favour).")
    var includeEmptySeedWindows = false

    @Flag(help: "Run our scan in combined mode (`scan --combined`): one request per conversation window for all the features.")
    var combined = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64, not \(concurrency)") }
        guard conversations >= 1, (1...365).contains(days) else { throw ValidationError("--conversations must be at least 1 and --days between 1 and 365") }
    }

    func run() async throws {
        output.bootstrap()
        var options = TokenCostBenchmark.Options(conversations: conversations)
        options.days = days
        options.seed = seed
        options.concurrency = concurrency
        options.promptsPath = prompts
        options.skipEmptySeedWindows = !includeEmptySeedWindows
        options.combined = combined
        if let now {
            guard let parsed = ISO8601Instant.parse(now) else { throw ValidationError("--now '\(now)' is not an ISO 8601 timestamp such as 2026-03-04T12:00:00Z") }
            options.now = parsed
        }
        let quiet = output.json
        let result = try await TokenCostBenchmark(database: database.configuration).run(options) { line in
            if !quiet { Console.error(line) }
        }
        if output.json {
            try Console.printJSON(result)
        } else {
            Console.print(Self.text(result))
        }
    }

    static func text(_ r: TokenCostBenchmark.Result) -> String {
        func side(_ s: TokenCostBenchmark.Side) -> String {
            "\(s.requests) requests from \(s.conversations) conversations: \(s.promptTokens) prompt (\(s.cachedPromptTokens) cached) + "
                + "\(s.completionTokens) completion = \(s.totalTokens) tokens; " + money(s.costUSD, model: s.model)
                + (s.batchCostUSD.map { String(format: " ($%.4f through the Batch API)", $0) } ?? "")
        }
        func money(_ usd: Double?, model: String) -> String {
            usd.map { String(format: "$%.4f at %@ list prices", $0, model) } ?? "cost unknown (no price for \(model))"
        }
        // The targets: per-feature requests at most 0.05, combined at most 0.03 (benchmarks/RESULTS.md).
        let target = r.combined ? 0.03 : 0.05
        return [
            "Workload: \(r.conversations) conversations, \(r.days) days, seed \(r.seed): \(r.messages) messages; "
                + "\(r.activeConversations) conversations with \(r.newMessages) new messages on the last day",
            (r.combined ? "Ours (nightly scan, combined): " : "Ours (nightly scan):  ") + side(r.ours),
            "Seed's design:        " + side(r.seedDesign) + " (\(r.seedSkippedEmptyWindows) requests with an empty window not sent)",
            "  the seed's night at our model: " + money(r.seedCostAtOurModelUSD, model: r.ours.model),
            String(format: "Ours / seed's: %.4f (the seed's design spends %.1fx as much)", r.share, r.factor)
                + "; target <= 0.1: " + (r.share <= 0.1 ? "met" : "MISSED"),
            "Conservative: our whole request bodies, \(r.ours.wire.bodyBytes) bytes = \(r.ours.wire.bodyTokens) tokens, against the seed's "
                + "message lines alone, \(r.seedMessageLineTokens) tokens: "
                + String(format: "%.4f; target <= %.2f: %@", r.conservativeShare, target, r.conservativeShare <= target ? "met" : "MISSED"),
            "  our bytes: " + r.ours.wire.breakdown,
            "Prices: " + (r.pricesAsOf.map { "list prices of \($0) (prompts/pricing/openai.yaml)" } ?? "no price file, costs unknown"),
        ].joined(separator: "\n")
    }
}
