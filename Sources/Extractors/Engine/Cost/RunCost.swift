package import AgentRuntime
package import Foundation
package import PromptKit

/// What a run's tokens cost at list prices: recorded in `job_runs.estimated_cost_usd` and printed by scan, assist
/// and eval. An estimate, never a bill; unknown (with the reason) rather than guessed when a price is missing.
package struct RunCost: Sendable, Codable, Equatable {
    /// Nil when the cost is unknown.
    package var usd: Double?
    package var model: String?
    /// The price table's date.
    package var pricesAsOf: String?
    /// Why `usd` is nil.
    package var unknownReason: String?
    package var batch = false
    /// Where the price came from when it is not the price file (`MESSAGEAI_PRICE_*`).
    var priceSource: String?

    enum CodingKeys: String, CodingKey {
        case usd, model, batch, estimate
        case pricesAsOf = "prices_as_of"
        case unknownReason = "unknown_reason"
        case priceSource = "price_source"
    }

    package init(usd: Double? = nil, model: String? = nil, pricesAsOf: String? = nil, unknownReason: String? = nil, batch: Bool = false) {
        self.usd = usd
        self.model = model
        self.pricesAsOf = pricesAsOf
        self.unknownReason = unknownReason
        self.batch = batch
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        usd = try c.decodeIfPresent(Double.self, forKey: .usd)
        model = try c.decodeIfPresent(String.self, forKey: .model)
        pricesAsOf = try c.decodeIfPresent(String.self, forKey: .pricesAsOf)
        unknownReason = try c.decodeIfPresent(String.self, forKey: .unknownReason)
        batch = try c.decodeIfPresent(Bool.self, forKey: .batch) ?? false
        priceSource = try c.decodeIfPresent(String.self, forKey: .priceSource)
    }

    /// `usd` is always written, null when unknown, beside `estimate` ("$0.0123" or "unknown"): a reader never has to
    /// tell a missing key from a free run.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(usd, forKey: .usd)
        try c.encode(Self.text(usd), forKey: .estimate)
        try c.encodeIfPresent(model, forKey: .model)
        try c.encodeIfPresent(pricesAsOf, forKey: .pricesAsOf)
        try c.encodeIfPresent(unknownReason, forKey: .unknownReason)
        try c.encode(batch, forKey: .batch)
        try c.encodeIfPresent(priceSource, forKey: .priceSource)
    }

    /// "$0.0123", or "unknown" for a cost nobody can price (never "$0").
    package static func text(_ usd: Double?) -> String { usd.map { String(format: "$%.4f", $0) } ?? "unknown" }

    /// Costs added up: unknown when any part is unknown, so a night with an unpriced model never reads as cheap.
    package static func sum(_ parts: [Double?]) -> Double? {
        parts.reduce(Optional(0.0)) { total, part in total.flatMap { total in part.map { total + $0 } } }
    }

    /// "Estimated cost: $0.0123 (gpt-4o-mini, list prices of 2026-11-23)" or "Estimated cost: unknown (why)".
    package var line: String {
        guard let usd else { return "Estimated cost: unknown (\(unknownReason ?? "no price"))" }
        let basis = [model, priceSource ?? pricesAsOf.map { "list prices of \($0)" }, batch ? "Batch API" : nil].compactMap { $0 }
        return String(format: "Estimated cost: $%.4f", usd) + (basis.isEmpty ? "" : " (" + basis.joined(separator: ", ") + ")")
    }

    /// Prices `usage` at `model` with the price file beside the prompts (`<prompts>/pricing/openai.yaml`).
    /// Tokens that were never sent cost nothing when no model was asked (the rule-based provider); for a model
    /// (`llm`), an unpriced one stays unknown even at zero tokens (e.g. an eval answered from its cache), so no
    /// report shows $0 for a model whose price nobody knows.
    /// `price` (the deployment's, `MESSAGEAI_PRICE_*`) wins over the file; without it a server that is not OpenAI's
    /// (`unpricedServer`) costs "unknown".
    package static func estimate(_ usage: TokenUsage, model: String?, promptDirectory: URL?, batch: Bool = false,
                                llm: Bool = false, price: TokenPrice? = nil, unpricedServer: String? = nil) -> RunCost {
        var cost = RunCost(model: model, batch: batch)
        if usage.promptTokens == 0, usage.completionTokens == 0, !llm {
            cost.usd = 0
            return cost
        }
        if let price {
            cost.usd = price.cost(prompt: usage.promptTokens, cachedPrompt: usage.cachedPromptTokens, completion: usage.completionTokens, batch: batch)
            cost.priceSource = "prices from MESSAGEAI_PRICE_*"
            return cost
        }
        if let unpricedServer {
            // A local or third-party server that names an OpenAI model is not billed at OpenAI's prices.
            cost.unknownReason = "the model server \(unpricedServer) is not OpenAI's API and no price is set (MESSAGEAI_PRICE_INPUT, MESSAGEAI_PRICE_OUTPUT)"
            return cost
        }
        guard let model else {
            cost.unknownReason = "the prompts of this run name more than one model"
            return cost
        }
        guard let directory = promptDirectory else {
            cost.unknownReason = "no prompt directory to find pricing/openai.yaml in"
            return cost
        }
        let file = PriceTable.file(inPromptDirectory: directory)
        guard PromptFiles.data(at: file) != nil else {
            cost.unknownReason = "no price file at \(file.relativePath)"
            return cost
        }
        let table: PriceTable
        do {
            table = try PriceTable.load(file: file)
        } catch {
            cost.unknownReason = "\(error)"
            return cost
        }
        cost.pricesAsOf = table.asOf
        cost.usd = table.cost(model: model, prompt: usage.promptTokens, cachedPrompt: usage.cachedPromptTokens,
                              completion: usage.completionTokens, batch: batch)
        if cost.usd == nil { cost.unknownReason = "no price for model '\(model)' in \(file.relativePath)" }
        return cost
    }

    /// Prices an extraction run: the model the engine's provider uses for these features' prompts (unknown when they
    /// differ), with the price file beside those prompts.
    package static func estimate(_ usage: TokenUsage, engine: ExtractionEngine, features: [ExtractionFeature], batch: Bool = false) -> RunCost {
        let prompts = features.compactMap { try? engine.prompt(for: $0) }
        let models = Set(prompts.map { engine.provider.modelName(for: $0) })
        let llm = engine.provider as? LLMAnswerProvider
        return estimate(usage, model: models.count == 1 ? models.first : nil,
                        promptDirectory: prompts.first.map { directory(of: $0) }, batch: batch,
                        llm: engine.provider.isModel,
                        price: llm?.price, unpricedServer: llm?.unpricedServer)
    }

    /// The folder a prompt was loaded from.
    package static func directory(of prompt: Prompt) -> URL {
        URL(fileURLWithPath: prompt.sourceFile).deletingLastPathComponent()
    }
}
