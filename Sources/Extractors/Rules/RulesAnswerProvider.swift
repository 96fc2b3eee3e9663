import Core
package import PromptKit

/// Answers every extractor from English patterns instead of an LLM, so the jobs run (and CI tests the whole
/// pipeline) with no model configured. Answers use the feature's schema and aliases, exactly like a model's,
/// so the engine validates and decodes them on the same path; they are conservative by design.
package struct RulesAnswerProvider: AnswerProvider {
    package let name = "rules"

    /// Answers for whatever features the engine asks: each request carries its feature, which knows its own rules
    /// (`Extractor.rulesAnswer`), so the provider needs no registry of its own.
    package init() {}

    package func modelName(for prompt: Prompt) -> String { "rules" }

    package var isModel: Bool { false }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        // The rendered prompt is not needed: the rules read the window itself.
        let scan = RuleScan(window: request.window, input: request.input)
        return ProviderAnswer(json: request.extractor.rulesAnswer(scan))
    }
}
