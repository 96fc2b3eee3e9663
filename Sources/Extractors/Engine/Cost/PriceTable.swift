package import Foundation
import Core
package import PromptKit

/// What a model's tokens cost, in US dollars per million tokens.
package struct ModelPrice: Sendable, Hashable, Codable {
    package var input: Double
    /// Prompt tokens the provider served from its prompt cache.
    package var cachedInput: Double
    package var output: Double

    package init(input: Double, cachedInput: Double, output: Double) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
    }
}

/// The list prices a run's cost is estimated with, read from `prompts/pricing/openai.yaml` so prices are updated the
/// way prompts are: by editing a file, with errors that name the file and line.
package struct PriceTable: Sendable, Hashable {
    /// The date the prices were checked, as written in the file.
    package let asOf: String
    /// The Batch API's price as a fraction of the list price.
    package let batchMultiplier: Double
    package let models: [String: ModelPrice]

    package init(asOf: String, batchMultiplier: Double, models: [String: ModelPrice]) {
        self.asOf = asOf
        self.batchMultiplier = batchMultiplier
        self.models = models
    }

    /// The file beside the prompts: `<prompts>/pricing/openai.yaml`.
    package static func file(inPromptDirectory directory: URL) -> URL {
        directory.appendingPathComponent("pricing").appendingPathComponent("openai.yaml")
    }

    /// The model's price; a dated snapshot (`gpt-4o-mini-2024-07-18`) falls back to its family (`gpt-4o-mini`).
    package func price(for model: String) -> ModelPrice? {
        if let exact = models[model] { return exact }
        let snapshot = model.range(of: #"-\d{4}-\d{2}-\d{2}$"#, options: .regularExpression)
        return snapshot.flatMap { models[String(model[..<$0.lowerBound])] }
    }

    /// Estimated dollars for these tokens, or nil when the model has no price. `cachedPrompt` is part of `prompt`.
    package func cost(model: String, prompt: Int, cachedPrompt: Int, completion: Int, batch: Bool = false) -> Double? {
        guard let price = price(for: model) else { return nil }
        let cached = min(max(cachedPrompt, 0), max(prompt, 0))
        let fresh = max(prompt, 0) - cached
        let dollars = (Double(fresh) * price.input + Double(cached) * price.cachedInput + Double(max(completion, 0)) * price.output) / 1_000_000
        return batch ? dollars * batchMultiplier : dollars
    }

    /// Reads and checks a price file; every problem is reported with its line.
    package static func load(file url: URL) throws(PromptLoadError) -> PriceTable {
        let display = url.relativePath
        guard let text = PromptFiles.data(at: url).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw PromptLoadError(problems: [FileProblem(file: display, line: 0, message: "cannot read the price table")])
        }
        let document: YAMLDocument
        do {
            document = try YAMLJSON.parse(text, file: display)
        } catch {
            throw PromptLoadError(problems: [FileProblem(file: display, line: error.line, message: error.message)])
        }
        var problems: [FileProblem] = []
        func problem(_ path: [JSONPathComponent], _ message: String) {
            problems.append(FileProblem(file: display, line: document.line(at: path) ?? 0, message: message))
        }
        let root = document.root.objectValue ?? [:]
        for key in root.keys where !["as_of", "currency", "batch_multiplier", "models"].contains(key) {
            problem([.key(key)], "unknown key '\(key)' (allowed: as_of, currency, batch_multiplier, models)")
        }
        let asOf = root["as_of"]?.stringValue ?? ""
        if asOf.isEmpty { problem([.key("as_of")], "as_of (the date the prices were checked) is required") }
        if let currency = root["currency"], currency.stringValue != "USD" { problem([.key("currency")], "currency must be USD") }
        let multiplier = root["batch_multiplier"]?.doubleValue ?? 0.5
        if !(0...1).contains(multiplier) { problem([.key("batch_multiplier")], "batch_multiplier must be between 0 and 1") }
        var models: [String: ModelPrice] = [:]
        if let entries = root["models"]?.objectValue, !entries.isEmpty {
            for (name, entry) in entries {
                var figures: [String: Double] = [:]
                for key in ["input", "cached_input", "output"] {
                    let path: [JSONPathComponent] = [.key("models"), .key(name), .key(key)]
                    guard let value = entry[key]?.doubleValue, value >= 0, value.isFinite else {
                        problem(path, "\(name).\(key) must be a non-negative number of dollars per million tokens")
                        continue
                    }
                    figures[key] = value
                }
                for key in entry.objectValue?.keys ?? [] where !["input", "cached_input", "output"].contains(key) {
                    problem([.key("models"), .key(name), .key(key)], "unknown key '\(key)' (allowed: input, cached_input, output)")
                }
                if let input = figures["input"], let cached = figures["cached_input"], let output = figures["output"] {
                    models[name] = ModelPrice(input: input, cachedInput: cached, output: output)
                }
            }
        } else {
            problem([.key("models")], "models must map each model name to its input, cached_input and output prices")
        }
        guard problems.isEmpty else { throw PromptLoadError(problems: problems) }
        return PriceTable(asOf: asOf, batchMultiplier: multiplier, models: models)
    }
}
