/// The deployment's price for its model server's tokens (`MESSAGEAI_PRICE_*`), in US dollars per million tokens.
/// Without it only OpenAI's own API is priced (its list prices, `prompts/pricing/openai.yaml`) and any other server
/// (Azure OpenAI, OpenRouter, one's own vLLM) costs "unknown" everywhere; with it every cost shown (scan, runs,
/// assist, eval, the worker's metric) is these prices, whatever the server.
package struct TokenPrice: Sendable, Hashable {
    package var input: Double
    /// Prompt tokens served from the server's prompt cache.
    package var cachedInput: Double
    package var output: Double
    /// The fraction taken off a Batch API request's price (0.5: half price).
    var batchDiscount: Double

    package static let inputSetting = "MESSAGEAI_PRICE_INPUT"
    package static let cachedInputSetting = "MESSAGEAI_PRICE_CACHED_INPUT"
    package static let outputSetting = "MESSAGEAI_PRICE_OUTPUT"
    package static let batchDiscountSetting = "MESSAGEAI_PRICE_BATCH_DISCOUNT"
    package static let settings = [inputSetting, cachedInputSetting, outputSetting, batchDiscountSetting]

    package init(input: Double, cachedInput: Double? = nil, output: Double, batchDiscount: Double = 0) {
        self.input = input
        self.cachedInput = cachedInput ?? input
        self.output = output
        self.batchDiscount = batchDiscount
    }

    /// Dollars for these tokens; `cachedPrompt` is part of `prompt`.
    package func cost(prompt: Int, cachedPrompt: Int, completion: Int, batch: Bool = false) -> Double {
        let cached = min(max(cachedPrompt, 0), max(prompt, 0))
        let dollars = (Double(max(prompt, 0) - cached) * input + Double(cached) * cachedInput + Double(max(completion, 0)) * output) / 1_000_000
        return batch ? dollars * (1 - batchDiscount) : dollars
    }

    /// Reads the prices; nil when none is set. Input and output go together (a price with only one of them would
    /// read as a cheap night); the cached-input price defaults to the input price, the Batch discount to none.
    package static func fromEnvironment(_ env: [String: String]) throws(LLMSettingError) -> TokenPrice? {
        func value(_ name: String) -> String? {
            guard let raw = env[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        func number(_ name: String, in range: ClosedRange<Double>, expected: String) throws(LLMSettingError) -> Double? {
            guard let raw = value(name) else { return nil }
            guard let parsed = Double(raw), parsed.isFinite, range.contains(parsed) else {
                throw LLMSettingError(name: name, value: raw, expected: expected)
            }
            return parsed
        }
        let dollars = "US dollars per million tokens, a number from 0 to 10000"
        let input = try number(inputSetting, in: 0...10_000, expected: dollars)
        let cached = try number(cachedInputSetting, in: 0...10_000, expected: dollars)
        let output = try number(outputSetting, in: 0...10_000, expected: dollars)
        let discount = try number(batchDiscountSetting, in: 0...1, expected: "the fraction taken off Batch API requests, 0 to 1 (0.5: half price)")
        guard input != nil || cached != nil || output != nil || discount != nil else { return nil }
        guard let input, let output else {
            let missing = input == nil ? inputSetting : outputSetting
            throw LLMSettingError(name: missing, value: nil,
                                  expected: "a price too: \(inputSetting) and \(outputSetting) are set together (US dollars per million tokens)")
        }
        return TokenPrice(input: input, cachedInput: cached, output: output, batchDiscount: discount ?? 0)
    }
}
