import TestSupport
import AgentRuntime
package import Extractors
package import Foundation
import JobsKit
package import Postgres
import PromptKit

/// The tokens of one night, our design against the seed's, on the same generated data and billed by the same
/// server rule (`TokenCostRule`): ours is the real nightly scan (`ScanService` with the openai provider and the real
/// engine: new messages plus context, pre-filter, one call per conversation window, or per window and feature with
/// `--per-feature`); the seed's is
/// `SeedDesignSimulation`. Everything happens in a scratch schema of the given database, dropped afterwards.
package struct TokenCostBenchmark: Sendable {
    package struct Options: Sendable {
        package var conversations: Int
        /// 30 days, so the seed's longest window (RSVPs) is full.
        package var days = 30
        package var seed: UInt64 = 1
        package var now = Date()
        /// Conversations (ours) and conversations' request streams (the seed's) in flight at once.
        package var concurrency = 8
        package var promptsPath = "prompts"
        package var skipEmptySeedWindows = true
        /// How our scan asks: combined by default, as `scan` does (`--per-feature` for five requests per window).
        package var mode = RequestMode.productDefault
        /// Open items of earlier nights per conversation, carried in its request (`OpenItemsSeeding`); 0 is a first night.
        package var openItems = 4

        package init(conversations: Int) { self.conversations = conversations }
    }

    package struct Side: Sendable, Codable, Equatable {
        /// Conversations that sent anything.
        package var conversations: Int
        package var requests: Int
        package var promptTokens: Int
        package var completionTokens: Int
        /// Prompt tokens the emulated prefix cache served (`PrefixCacheEmulator`).
        package var cachedPromptTokens = 0
        package var totalTokens: Int { promptTokens + completionTokens }
        package var seconds: Double
        /// The model the side is priced at.
        package var model = ""
        /// List-price dollars for the night, nil when the price table has no price for `model`.
        package var costUSD: Double?
        /// The same tokens through the Batch API.
        package var batchCostUSD: Double?
        /// What the cached prompt tokens saved: the night without the cache discount minus `costUSD`.
        package var cacheSavingsUSD: Double?
        /// The request bodies as sent, and where their bytes go.
        package var wire = TokenCostMeasure()

        enum CodingKeys: String, CodingKey {
            case conversations, requests, seconds, model, wire
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
            case cachedPromptTokens = "cached_prompt_tokens"
            case totalTokens = "total_tokens"
            case costUSD = "cost_usd"
            case batchCostUSD = "batch_cost_usd"
            case cacheSavingsUSD = "cache_savings_usd"
        }

        package init(conversations: Int, requests: Int, promptTokens: Int, completionTokens: Int, seconds: Double) {
            self.conversations = conversations
            self.requests = requests
            self.promptTokens = promptTokens
            self.completionTokens = completionTokens
            self.seconds = seconds
        }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            conversations = try c.decode(Int.self, forKey: .conversations)
            requests = try c.decode(Int.self, forKey: .requests)
            promptTokens = try c.decode(Int.self, forKey: .promptTokens)
            completionTokens = try c.decode(Int.self, forKey: .completionTokens)
            cachedPromptTokens = try c.decodeIfPresent(Int.self, forKey: .cachedPromptTokens) ?? 0
            seconds = try c.decode(Double.self, forKey: .seconds)
            model = try c.decodeIfPresent(String.self, forKey: .model) ?? ""
            costUSD = try c.decodeIfPresent(Double.self, forKey: .costUSD)
            batchCostUSD = try c.decodeIfPresent(Double.self, forKey: .batchCostUSD)
            cacheSavingsUSD = try c.decodeIfPresent(Double.self, forKey: .cacheSavingsUSD)
            wire = try c.decodeIfPresent(TokenCostMeasure.self, forKey: .wire) ?? TokenCostMeasure()
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(conversations, forKey: .conversations)
            try c.encode(requests, forKey: .requests)
            try c.encode(promptTokens, forKey: .promptTokens)
            try c.encode(completionTokens, forKey: .completionTokens)
            try c.encode(cachedPromptTokens, forKey: .cachedPromptTokens)
            try c.encode(totalTokens, forKey: .totalTokens)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(model, forKey: .model)
            try c.encode(costUSD, forKey: .costUSD)
            try c.encode(batchCostUSD, forKey: .batchCostUSD)
            try c.encode(cacheSavingsUSD, forKey: .cacheSavingsUSD)
            try c.encode(wire, forKey: .wire)
        }

        /// Prices the side's tokens at `model`'s list price.
        mutating func price(_ table: PriceTable?, model: String) {
            self.model = model
            costUSD = table?.cost(model: model, prompt: promptTokens, cachedPrompt: cachedPromptTokens, completion: completionTokens)
            batchCostUSD = table?.cost(model: model, prompt: promptTokens, cachedPrompt: cachedPromptTokens,
                                       completion: completionTokens, batch: true)
            let uncached = table?.cost(model: model, prompt: promptTokens, cachedPrompt: 0, completion: completionTokens)
            cacheSavingsUSD = costUSD.flatMap { cost in uncached.map { $0 - cost } }
        }
    }

    package struct Result: Sendable, Codable {
        package var conversations: Int
        package var days: Int
        package var seed: UInt64
        package var messages: Int
        package var activeConversations: Int
        package var newMessages: Int
        package var ours: Side
        package var seedDesign: Side
        package var seedSkippedEmptyWindows: Int
        package var seedRequestsByFeature: [String: Int]
        /// Our total tokens as a share of the seed's (target: at most 0.1).
        package var share: Double
        /// How many times more the seed's design spends.
        package var factor: Double
        /// The seed's message lines alone at 4 bytes per token: no system prompt, no schema, no JSON.
        package var seedMessageLineTokens: Int
        /// The conservative ratio: every byte of our request bodies against only the seed's message lines.
        package var conservativeShare: Double
        /// The price table's date, nil when no price file was found.
        package var pricesAsOf: String?
        /// The seed's night at our model's price, so the money compares design with design.
        package var seedCostAtOurModelUSD: Double?
        /// Open items of earlier nights each conversation carried.
        package var openItems = 0
        /// How our scan asked.
        package var requestMode = RequestMode.productDefault
        /// Whether our scan ran in combined mode.
        package var combined: Bool { requestMode == .combined }

        enum CodingKeys: String, CodingKey {
            case conversations, days, seed, messages, ours, share, factor
            case requestMode = "request_mode"
            case openItems = "open_items"
            case activeConversations = "active_conversations"
            case newMessages = "new_messages"
            case seedDesign = "seed_design"
            case seedSkippedEmptyWindows = "seed_skipped_empty_windows"
            case seedRequestsByFeature = "seed_requests_by_feature"
            case seedMessageLineTokens = "seed_message_line_tokens"
            case conservativeShare = "conservative_share"
            case pricesAsOf = "prices_as_of"
            case seedCostAtOurModelUSD = "seed_cost_at_our_model_usd"
        }
    }

    package let database: PostgresConfiguration

    /// Where `MESSAGEAI_HOME` and the other settings the benchmark's engine reads come from (the binary's one read).
    package let environment: [String: String]

    package init(database: PostgresConfiguration, environment: [String: String] = [:]) {
        self.database = database
        self.environment = environment
    }

    package func run(_ options: Options, log: @Sendable (String) -> Void = { _ in }) async throws -> Result {
        guard (1...64).contains(options.concurrency) else { throw BenchError("--concurrency must be between 1 and 64, not \(options.concurrency)") }
        let workload = try WorkloadGenerator.make(WorkloadSpec(
            conversations: options.conversations, days: options.days, seed: options.seed, now: options.now))
        let now = workload.spec.now
        let server = try AgentBenchmarkServer(latency: .zero, steps: 1)
        defer { server.stop() }
        let configuration = LLMConfiguration(baseURL: server.baseURL, defaultModel: "bench-model", retryPolicy: .noRetries,
                                                 maxConcurrency: BenchOpenAIServer.clientConcurrency)
        // One meter (and one emulated prompt cache) per side: each design runs its own night.
        let ourMeter = TokenCostMeter()
        let seedMeter = TokenCostMeter()
        let client = OpenAIClient(configuration: configuration, transport: ourMeter)
        let seedClient = OpenAIClient(configuration: configuration, transport: seedMeter)
        let prices = try Self.prices(promptsPath: options.promptsPath)

        log("loading \(workload.conversations.count) conversations, \(workload.messages.count) messages into a scratch schema")
        let measured = try await ScratchSchema.with(database, prefix: "bench_tokens_", connections: options.concurrency + 1) { pool in
            _ = try await WorkloadLoader(pool: pool).load(workload)
            if options.openItems > 0 {
                let saved = try await OpenItemsSeeding(count: options.openItems).seed(workload, pool: pool)
                log("\(saved) open items of earlier nights (\(options.openItems) per conversation)")
            }
            log("our nightly scan (\(workload.activeConversations) conversations with new messages)")
            var scan = ScanOptions()
            scan.concurrency = options.concurrency
            scan.owner = "bench-tokens"
            var engine = try ExtractionEngine(
                prompts: try ProviderFactory.library(promptsPath: options.promptsPath, environment: environment),
                provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema))
            engine.mode = options.mode
            let summary = try await ScanService(pool: pool, engine: engine, options: scan).run(now: now)
            if let failure = summary.failures.first {
                throw BenchError("the scan failed for \(summary.failed) conversation(s); first: \(failure.error)")
            }
            var side = Side(conversations: summary.conversations, requests: summary.requests, promptTokens: summary.usage.promptTokens,
                            completionTokens: summary.usage.completionTokens, seconds: summary.seconds)
            side.cachedPromptTokens = summary.usage.cachedPromptTokens
            return side
        }
        let ourModel = try Self.extractorModel(promptsPath: options.promptsPath)
        var oursPriced = measured
        oursPriced.wire = ourMeter.snapshot
        oursPriced.price(prices, model: ourModel)

        log("the seed's design on the same data")
        var simulation = SeedDesignSimulation(now: now)
        simulation.skipEmptyWindows = options.skipEmptySeedWindows
        let started = Date()
        let totals = try await simulation.send(SeedDesignConversation.all(from: workload), to: seedClient, concurrency: options.concurrency)
        var seedSide = Side(conversations: totals.conversations, requests: totals.requests, promptTokens: totals.promptTokens,
                            completionTokens: totals.completionTokens, seconds: Date().timeIntervalSince(started))
        seedSide.cachedPromptTokens = totals.cachedPromptTokens
        seedSide.wire = seedMeter.snapshot
        seedSide.price(prices, model: simulation.model)
        var seedAtOurModel = seedSide
        seedAtOurModel.price(prices, model: ourModel)
        let ours = oursPriced
        let seedLineTokens = TokenCostRule.tokens(bytes: totals.messageLineBytes)
        return Result(
            conversations: workload.conversations.count, days: options.days, seed: options.seed, messages: workload.messages.count,
            activeConversations: workload.activeConversations, newMessages: workload.newMessages,
            ours: ours, seedDesign: seedSide, seedSkippedEmptyWindows: totals.skippedEmptyWindows,
            seedRequestsByFeature: totals.requestsByFeature,
            share: seedSide.totalTokens > 0 ? Double(ours.totalTokens) / Double(seedSide.totalTokens) : 0,
            factor: ours.totalTokens > 0 ? Double(seedSide.totalTokens) / Double(ours.totalTokens) : 0,
            seedMessageLineTokens: seedLineTokens,
            conservativeShare: seedLineTokens > 0 ? Double(ours.wire.bodyTokens) / Double(seedLineTokens) : 0,
            pricesAsOf: prices?.asOf, seedCostAtOurModelUSD: seedAtOurModel.costUSD, openItems: options.openItems,
            requestMode: options.mode)
    }

    /// `<prompts>/pricing/openai.yaml`, nil when there is none (costs are then unknown, not guessed).
    static func prices(promptsPath: String) throws -> PriceTable? {
        let file = PriceTable.file(inPromptDirectory: URL(fileURLWithPath: promptsPath))
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try PriceTable.load(file: file)
    }

    /// The model the extractor prompts name (the first, by file name): what the nightly scan is priced at.
    static func extractorModel(promptsPath: String) throws -> String {
        let library = try PromptLibrary.load(directory: URL(fileURLWithPath: promptsPath))
        return library.all.filter { $0.id != "assistant" }.sorted { $0.id < $1.id }.first?.model ?? "gpt-4o-mini"
    }
}
