import Core
package import PromptKit

/// Answers every extractor from English patterns instead of an LLM, so the jobs run (and CI tests the whole
/// pipeline) with no model configured. Answers use the feature's schema and aliases, exactly like a model's,
/// so the engine validates and decodes them on the same path; they are conservative by design.
package struct RulesAnswerProvider: AnswerProvider {
    package let name = "rules"

    /// The features it answers for; each knows its own rules (`ParentFeature.rulesAnswer`).
    package let registry: FeatureRegistry

    package init(registry: FeatureRegistry = .parents) {
        self.registry = registry
    }

    package func modelName(for prompt: Prompt) -> String { "rules" }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        // The rendered prompt is not needed: the rules read the window itself.
        let scan = RuleScan(window: request.window, input: request.input)
        return ProviderAnswer(json: try registry.require(request.feature).rulesAnswer(scan))
    }
}
