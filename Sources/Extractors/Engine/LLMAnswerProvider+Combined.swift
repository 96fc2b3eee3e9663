import AgentRuntime
import JSONKit

/// One request for several features, under the same bounded rules as a per-feature answer: validated locally (each
/// part against its feature's schema), re-asked once with only the last answer and its errors, a cut-off answer
/// fails at once. A truncation or refusal is reported against the first feature asked for.
extension LLMAnswerProvider: CombinedAnswering {
    public func answerCombined(_ request: CombinedAnswerRequest) async throws -> ProviderAnswer {
        let first = request.features.first ?? .calendarEvents
        let base = makeRequest(request.rendered, schema: request.schemaJSON, name: request.rendered.outputName ?? CombinedSchema.promptID)
        var answer = ProviderAnswer(json: .null)
        let firstText = try await complete(base, feature: first, into: &answer)
        let firstCheck = check(firstText, request)
        if firstCheck.errors.isEmpty {
            answer.json = firstCheck.json
            return answer
        }
        logger.info("re-asking once after an invalid combined answer", metadata: [
            "features": "\(firstCheck.failed.map(\.rawValue).joined(separator: ","))", "errors": "\(firstCheck.errors.count)"])
        var retry = base
        retry.messages += [.assistant(content: firstText, toolCalls: []), .user(Self.reaskText(firstCheck.errors))]
        answer.reasked = true
        let secondText = try await complete(retry, feature: first, into: &answer)
        let secondCheck = check(secondText, request)
        guard secondCheck.errors.isEmpty else {
            throw ExtractionError.invalidOutput(feature: secondCheck.failed.first ?? first, errors: secondCheck.errors)
        }
        answer.json = secondCheck.json
        return answer
    }

    private func check(_ content: String, _ request: CombinedAnswerRequest) -> (json: JSONValue, failed: [ExtractionFeature], errors: [String]) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Self.stripCodeFence(content))
        } catch {
            return (.null, Array(request.features.prefix(1)), ["$: the answer is not JSON (\(error))"])
        }
        let (failed, errors) = request.problems(json)
        return (json, failed, errors)
    }
}
