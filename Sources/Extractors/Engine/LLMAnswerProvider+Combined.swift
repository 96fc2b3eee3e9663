import AgentRuntime
import Core

/// One request for several features, under the same bounded rules as a per-feature answer: validated locally (each
/// part against its feature's schema), re-asked once with only the last answer and its errors, a cut-off answer
/// fails at once. A truncation or refusal is reported against the first feature asked for.
extension LLMAnswerProvider: CombinedAnswering {
    package func answerCombined(_ request: CombinedAnswerRequest) async throws -> ProviderAnswer {
        let first = request.features.first ?? .calendarEvents
        let base = makeRequest(request.rendered, schema: request.schemaJSON, name: request.rendered.outputName ?? CombinedSchema.promptID)
        return try await ask(base, feature: first, what: "combined answer", logger: request.logger) { json in
            let found = request.problems(json)
            return (found.features.first ?? first, found.errors)
        }
    }
}
