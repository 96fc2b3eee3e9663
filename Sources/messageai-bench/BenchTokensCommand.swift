import ArgumentParser
import Core
import Extractors
import Foundation
import Bench
import JobsKit
import JobsCLI

struct BenchTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Tokens of one night: our nightly scan against the seed's design, on the same generated data.",
        discussion: """
            Creates a scratch schema in the database at DATABASE_URL (use a scratch database; the schema is dropped \
            afterwards and nothing else is touched), loads a generated workload with --open-items open items of \
            earlier nights per conversation (4 by default; their list goes in each request), and runs the real nightly scan with \
            the openai provider against an in-process scripted server, in the scan's default mode (one combined request \
            per conversation window; --per-feature for five). Then sends the seed's design's requests for \
            the same data to the same server: every feature re-sends its whole window every night for every \
            conversation (calendar and decisions 7 days, priority 1 day, RSVPs 30 days, deadlines 14 days), RSVPs \
            and deadlines once per participant, with the seed's prompts and message formats. Both sides are billed \
            by the server's one rule: ceil(UTF-8 bytes / 4). Also prints the conservative count (every byte of our request \
            bodies against only the seed's message lines), where our bytes go, the prompt tokens OpenAI's prefix cache \
            would serve (emulated: 128-token blocks from 1,024 tokens on) and the static prefix every request shares, \
            and each night's money (with what the cache saved, and through the Batch API) at the list prices \
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

    @Flag(help: "Run our scan with one request per feature and window (`scan --per-feature`) instead of the default, one combined request per window.")
    var perFeature = false

    @Option(help: "Open items of earlier nights each conversation carries into its request (0: a first night, nothing carried).")
    var openItems: Int = 4

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64, not \(concurrency)") }
        guard (0...40).contains(openItems) else { throw ValidationError("--open-items must be between 0 and 40, not \(openItems)") }
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
        options.mode = perFeature ? .perFeature : .combined
        options.openItems = openItems
        if let now {
            guard let parsed = ISO8601Instant.parse(now) else { throw ValidationError("--now '\(now)' is not an ISO 8601 timestamp such as 2026-03-04T12:00:00Z") }
            options.now = parsed
        }
        let quiet = output.json
        let result = try await TokenCostBenchmark(database: try database.configuration(BenchEnvironment.values), environment: BenchEnvironment.values).run(options) { line in
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
                + (s.cacheSavingsUSD.map { String(format: " (the cache saved $%.4f)", $0) } ?? "")
                + (s.batchCostUSD.map { String(format: "; $%.4f through the Batch API", $0) } ?? "")
        }
        // The static prefix of each kind of request: what a provider's prompt cache can serve across conversations.
        let prefixes = r.ours.wire.sharedPrefixTokens.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value)" + ($0.value >= PrefixCacheEmulator.minimumTokens ? "" : " (under \(PrefixCacheEmulator.minimumTokens): not cached)") }
            .joined(separator: ", ")
        func money(_ usd: Double?, model: String) -> String {
            usd.map { String(format: "$%.4f at %@ list prices", $0, model) } ?? "cost unknown (no price for \(model))"
        }
        // The target: at most 0.05 in the default (combined) mode (issue 37); per-feature requests are measured beside it.
        let target = 0.05
        return [
            "Workload: \(r.conversations) conversations, \(r.days) days, seed \(r.seed): \(r.messages) messages; "
                + "\(r.activeConversations) conversations with \(r.newMessages) new messages on the last day; "
                + "\(r.openItems) open items of earlier nights per conversation",
            (r.combined ? "Ours (nightly scan, combined, the default): " : "Ours (nightly scan, --per-feature): ") + side(r.ours),
            "  static prompt prefix shared by every request, in tokens: " + (prefixes.isEmpty ? "none" : prefixes),
            "Seed's design:        " + side(r.seedDesign) + " (\(r.seedSkippedEmptyWindows) requests with an empty window not sent)",
            "  the seed's night at our model: " + money(r.seedCostAtOurModelUSD, model: r.ours.model),
            String(format: "Ours / seed's: %.4f (the seed's design spends %.1fx as much)", r.share, r.factor)
                + "; target <= 0.1: " + (r.share <= 0.1 ? "met" : "MISSED"),
            "Conservative: our whole request bodies, \(r.ours.wire.bodyBytes) bytes = \(r.ours.wire.bodyTokens) tokens, against the seed's "
                + "message lines alone, \(r.seedMessageLineTokens) tokens: "
                + String(format: "%.4f; target <= %.2f: %@", r.conservativeShare, target, r.conservativeShare <= target ? "met" : (r.combined ? "MISSED" : "missed (the default, combined, is the mode held to it)")),
            "  our bytes: " + r.ours.wire.breakdown,
            "Prices: " + (r.pricesAsOf.map { "list prices of \($0) (prompts/pricing/openai.yaml)" } ?? "no price file, costs unknown"),
        ].joined(separator: "\n")
    }
}
