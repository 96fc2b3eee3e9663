import Core

/// The rule-based provider answers a combined request with its per-feature answers side by side, so a combined run
/// without an LLM finds exactly what a per-feature run finds (the same rules, checks and decoders).
extension RulesAnswerProvider: CombinedAnswering {
    package func answerCombined(_ request: CombinedAnswerRequest) async throws -> ProviderAnswer {
        let scan = RuleScan(window: request.window, input: request.input)
        var parts = JSONObject()
        for feature in request.extractors {
            parts[feature.id.rawValue] = feature.rulesAnswer(scan)
        }
        return ProviderAnswer(json: .object(parts))
    }
}
