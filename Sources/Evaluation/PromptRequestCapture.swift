package import AgentRuntime
package import Extractors
import Foundation
package import Core
package import PromptKit

/// The exact Chat Completions body production would send for one feature and one fixture's first window.
///
/// Rather than rebuild the request beside `LLMAnswerProvider` (and drift from it), this runs the real engine
/// with a client that records the first request and stops the extraction.
package enum PromptRequestCapture {
    package static func body(
        feature: ExtractionFeature, version: Int?, fixture: Fixture, prompts: PromptLibrary,
        structuredOutput: StructuredOutputMode, modelOverride: String? = nil,
        tokenField: MaxTokensField = .maxCompletionTokens, windowing: Windowing = Windowing(), schemaBounds: Bool = false,
        registry: FeatureRegistry = .shipping
    ) async throws -> JSONValue {
        let client = CapturingClient()
        var provider = LLMAnswerProvider(client: client, structuredOutput: structuredOutput, modelOverride: modelOverride)
        provider.schemaBounds = schemaBounds
        var picks: [ExtractionFeature: Int] = [:]
        if let version { picks[feature] = version }
        let engine = try ExtractionEngine(prompts: prompts, provider: provider, windowing: windowing, promptVersions: picks,
                                          registry: registry)
        _ = try engine.prompt(for: feature)
        do {
            _ = try await engine.extract(try FixtureConversation.input(fixture), features: [feature])
        } catch is CapturedRequest {
            // Expected: the client stops the extraction once it holds the first request.
        }
        guard let request = await client.first else {
            throw EvalRunError("fixture '\(fixture.id)' has no messages, so no request would be sent")
        }
        return request.body(tokenField: tokenField)
    }

    /// The combined request (`prompts/combined.yaml`, the pinned version unless `prompts` was re-pinned) for all
    /// features of `registry` over the fixture's first window, as `scan --combined` sends it.
    package static func combinedBody(
        fixture: Fixture, prompts: PromptLibrary, structuredOutput: StructuredOutputMode, modelOverride: String? = nil,
        tokenField: MaxTokensField = .maxCompletionTokens, windowing: Windowing = Windowing(), schemaBounds: Bool = false,
        registry: FeatureRegistry = .shipping
    ) async throws -> JSONValue {
        let client = CapturingClient()
        var provider = LLMAnswerProvider(client: client, structuredOutput: structuredOutput, modelOverride: modelOverride)
        provider.schemaBounds = schemaBounds
        var engine = try ExtractionEngine(prompts: prompts, provider: provider, windowing: windowing, registry: registry)
        engine.mode = .combined
        _ = try engine.combinedPrompt()
        do {
            _ = try await engine.extract(try FixtureConversation.input(fixture), features: engine.registry.ids)
        } catch is CapturedRequest {
            // Expected, as above.
        }
        guard let request = await client.first else {
            throw EvalRunError("fixture '\(fixture.id)' has no messages, so no request would be sent")
        }
        return request.body(tokenField: tokenField)
    }

    /// The fixture `id` of `path` (a file or folder, found under MESSAGEAI_HOME too), for `prompts render` and `diff`.
    package static func fixture(_ id: String, from path: String, environment: [String: String]) throws -> Fixture {
        let loaded: [Fixture]
        if let missing = ProviderFactory.missingFixtures(path, environment: environment) { throw EvalRunError(missing) }
        do {
            loaded = try FixtureLoader.load(path: ProviderFactory.homePath(path, environment: environment))
        } catch {
            throw EvalRunError("the fixtures do not load:\n\(error)")
        }
        guard let chosen = loaded.first(where: { $0.id == id }) else {
            throw EvalRunError("no fixture '\(id)' in \(path) (\(loaded.count) fixtures, e.g. \(loaded.prefix(3).map(\.id).joined(separator: ", ")))")
        }
        return chosen
    }

    private struct CapturedRequest: Error {}

    private actor CapturingClient: ChatCompleting {
        var first: ChatCompletionRequest?

        func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
            if first == nil { first = request }
            throw CapturedRequest()
        }
    }
}
