package import Extractors
package import PromptKit

/// `eval --provider labels`: the answers a perfect model would give, written from a fixture's labels. The eval runner
/// works out each night's answer (`LabelAnswers.answer`) and hands it to a provider made for that night (`night`), which
/// writes it as the JSON of each request (`LabelAnswers.json`: new items and the `known` list, with the window's
/// aliases); the engine decodes it like a model's. The variant's own provider (no night) only names the provider and
/// its prompts in the report.
struct LabelsAnswerProvider: AnswerProvider, CombinedAnswering {
    /// The night's answer; nil for the variant's provider, which is never asked.
    package var night: NightAnswer?

    package init(night: NightAnswer? = nil) {
        self.night = night
    }

    package var name: String { "labels" }

    package func modelName(for prompt: Prompt) -> String { "labels" }

    package var isModel: Bool { false }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        let night = try required()
        let json = LabelAnswers.json(night, features: [request.feature], window: request.window, listsKnown: request.sentSchema != nil)
        var object = json.objectValue ?? [:]
        var answer = object[request.feature.rawValue]?.objectValue ?? [:]
        if let known = object[KnownItems.key] { answer[KnownItems.key] = known }
        object = answer
        return ProviderAnswer(json: .object(object), requests: 1)
    }

    package func answerCombined(_ request: CombinedAnswerRequest) async throws -> ProviderAnswer {
        let night = try required()
        return ProviderAnswer(json: LabelAnswers.json(night, features: request.features, window: request.window, listsKnown: request.listsKnown),
                              requests: 1)
    }

    private func required() throws -> NightAnswer {
        guard let night else { throw ExtractionError.invalidInput("the labels provider answers eval fixtures only, from their labels") }
        return night
    }
}
