package import AgentRuntime
import Foundation
package import Core
import PromptKit

/// One request of a batch: a feature over one window of one conversation.
package struct BatchRequestPlan: Sendable {
    package let feature: ExtractionFeature
    /// Indices into the input's messages.
    package let window: Range<Int>
    package let request: ChatCompletionRequest
}

/// Why a batch answer cannot be used; the conversation it belongs to is not advanced.
struct BatchAnswerError: Error, Sendable, CustomStringConvertible {
    package let feature: ExtractionFeature
    package let problems: [String]

    package var description: String {
        "\(feature.rawValue): the batch answer is not usable: " + problems.prefix(5).joined(separator: "; ")
            + (problems.count > 5 ? " (+\(problems.count - 5) more)" : "")
    }
}

/// The synchronous engine's two halves, rendering and decoding, apart: with OpenAI's Batch API the answer to a
/// request arrives hours after it was rendered. Both halves are the engine's own code, so a batch writes the rows a
/// synchronous extraction would (except that a batch cannot re-ask: an invalid answer fails its conversation).
extension ExtractionEngine {
    /// Every request a synchronous `extract` would send first: per (feature, window) in feature then window order, or
    /// in combined mode one per window. Needs the LLM provider: the rule-based one has nothing to batch.
    package func batchRequests(_ input: ConversationInput, features: [ExtractionFeature]) throws -> [BatchRequestPlan] {
        guard let llm = provider as? LLMAnswerProvider else {
            throw ExtractionError.invalidInput("batch mode needs the openai provider, not '\(provider.name)'")
        }
        guard !input.messages.isEmpty else { return [] }
        let sorted = registry.sorted(features)
        if mode == .combined, sorted.count > 1 { return try combinedBatchRequests(input, features: sorted, llm: llm) }
        var plans: [BatchRequestPlan] = []
        for feature in sorted {
            let parent = try registry.require(feature)
            let prompt = try prompt(for: feature)
            let schema = try batchSchema(prompt)
            let listsKnown = !input.state.shownItems(features: [feature]).isEmpty
            let sentSchema: JSONValue? = if listsKnown { try withKnown(prompt.outputSchema ?? .object([:]), features: [feature]) } else { Optional.none }
            for range in windowing.windows(input.messages) {
                let window = MessageWindow(messages: Array(input.messages[range]), participants: input.participants)
                let rendered: RenderedPrompt
                do {
                    rendered = try prompt.render(Self.variables(input: input, window: window, features: [feature]),
                                                 model: llm.modelName(for: prompt))
                } catch {
                    throw ExtractionError.promptProblem("\(prompt.sourceFile): \(error)")
                }
                let request = llm.makeRequest(AnswerRequest(
                    extractor: parent, prompt: prompt, rendered: rendered, window: window, input: input, schema: schema,
                    sentSchema: sentSchema))
                plans.append(BatchRequestPlan(feature: feature, window: range, request: request))
            }
        }
        return plans
    }

    /// One combined request per window (`mode == .combined`), rendered as `extractCombined` sends it. Its plan's
    /// feature is `combinedItem`, the name the batch stores and `decodeBatchAnswer` recognises.
    private func combinedBatchRequests(_ input: ConversationInput, features: [ExtractionFeature],
                                       llm: LLMAnswerProvider) throws -> [BatchRequestPlan] {
        for feature in features { _ = try registry.require(feature) }
        let listsKnown = !shownItems(input, features: features).isEmpty
        let schemaJSON = listsKnown ? try withKnown(try combinedSchema(features), features: features) : try combinedSchema(features)
        let full = try combinedPrompt()
        let prompt = features.count < registry.features.count ? Self.restrictExamples(full, to: features) : full
        return try windowing.windows(input.messages).map { range in
            let window = MessageWindow(messages: Array(input.messages[range]), participants: input.participants)
            let rendered: RenderedPrompt
            do {
                rendered = try prompt.render(Self.variables(input: input, window: window, features: Set(features)),
                                             model: llm.modelName(for: prompt))
            } catch {
                throw ExtractionError.promptProblem("\(prompt.sourceFile): \(error)")
            }
            let request = llm.makeRequest(rendered, schema: schemaJSON, name: rendered.outputName ?? CombinedSchema.promptID)
            return BatchRequestPlan(feature: Self.combinedItem, window: range, request: request)
        }
    }

    /// The name a batch item answering all its batch's features in one combined request is stored under.
    package static let combinedItem = ExtractionFeature(CombinedSchema.promptID)

    /// Validates one batch answer (a Chat Completions response body) against the feature's schema and decodes it with
    /// the window's aliases, exactly as `extract` does. The result carries the answer's usage and one request.
    /// For a combined item (`feature == combinedItem`) the answer holds every one of `features`: each part passes its
    /// feature's schema and decoder, as in `extractCombined`.
    package func decodeBatchAnswer(_ body: JSONValue, feature: ExtractionFeature, features: [ExtractionFeature] = [],
                                  window: Range<Int>, input: ConversationInput) throws -> ExtractionRun {
        func fail(_ problem: String) -> BatchAnswerError { BatchAnswerError(feature: feature, problems: [problem]) }
        guard window.lowerBound >= 0, window.upperBound <= input.messages.count, !window.isEmpty else {
            throw fail("window \(window.lowerBound)..<\(window.upperBound) is outside the conversation's \(input.messages.count) messages")
        }
        let parts = feature == Self.combinedItem ? registry.sorted(features) : [feature]
        guard !parts.isEmpty else { throw fail("a combined answer needs the batch's list of features") }
        let response: ChatCompletionResponse
        do {
            response = try ChatCompletionResponse.decode(body.serializedData())
        } catch {
            throw fail("the response is not a chat completion: \(error)")
        }
        let choice = response.firstChoice
        if choice.finishReason == .length { throw fail("the answer was cut off at the token limit") }
        if let refusal = choice.message.refusal, !refusal.isEmpty { throw fail("the model refused: \(refusal.prefix(300))") }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(LLMAnswerProvider.stripCodeFence(choice.message.content ?? ""))
        } catch {
            throw fail("$: the answer is not JSON (\(error))")
        }
        let messageWindow = MessageWindow(messages: Array(input.messages[window]), participants: input.participants)
        var run = ExtractionRun()
        // The `known` list of a request that listed open items (the same state must be in `input`, as when it was sent).
        let listsKnown = !shownItems(input, features: parts).isEmpty
        if listsKnown {
            let decoded = Self.decodeKnown(parsed, registry: registry, window: messageWindow, input: input, features: Set(parts))
            run.extraction.known = decoded.verdicts
            run.extraction.notes += decoded.notes
        }
        for part in parts {
            let schema = try batchSchema(try prompt(for: part))
            let whole = feature == Self.combinedItem ? parsed[part.rawValue] ?? .null : parsed
            let (answer, capNotes) = AnswerCaps.apply(listsKnown ? KnownItems.split(whole).rest : whole, schema: schema, feature: part)
            let problems = schema.validate(answer)
            guard problems.isEmpty else { throw BatchAnswerError(feature: part, problems: problems.map(\.description)) }
            var decoded = Self.decode(answer, try registry.require(part), window: messageWindow, input: input)
            decoded.notes = capNotes + decoded.notes
            run.extraction.merge(decoded)
        }
        if let usage = response.usage { run.usage = TokenUsage(usage) }
        run.requests = 1
        run.windows = 1
        return run
    }

    private func batchSchema(_ prompt: Prompt) throws -> JSONSchema {
        guard let schema = prompt.outputSchema else {
            throw ExtractionError.promptProblem("\(prompt.sourceFile): an extractor prompt needs an output schema")
        }
        do {
            return try JSONSchema(schema)
        } catch {
            throw ExtractionError.promptProblem("\(prompt.sourceFile): its output schema does not compile: \(error)")
        }
    }
}
