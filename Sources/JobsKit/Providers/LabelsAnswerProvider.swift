package import Extractors
package import PromptKit

/// `eval --provider labels`: the eval runner answers every night of a fixture from its labels (`LabelAnswers`) and
/// never asks this provider; it stands in the variant's engine so the report names the provider and its prompts.
package struct LabelsAnswerProvider: AnswerProvider {
    package init() {}

    package var name: String { "labels" }

    package func modelName(for prompt: Prompt) -> String { "labels" }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        throw ExtractionError.invalidInput("the labels provider answers eval fixtures only, from their labels")
    }
}
