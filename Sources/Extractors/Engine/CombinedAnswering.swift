package import Core
package import Logging
package import PromptKit

/// A provider that can answer several features in one request (`ExtractionEngine.combined`). Its answer is one object
/// with a property per feature, valid for `CombinedAnswerRequest.schema`; the engine splits it and checks and decodes
/// each part exactly as a per-feature answer.
package protocol CombinedAnswering: AnswerProvider {
    func answerCombined(_ request: CombinedAnswerRequest) async throws -> ProviderAnswer
}

/// Several features over one window of one conversation, in one request.
package struct CombinedAnswerRequest: Sendable {
    /// The engine's features (from its registry), in its order; the answer has one property per feature.
    package let extractors: [any Extractor]
    package var features: [ExtractionFeature] { extractors.map(\.id) }
    /// The combined prompt (`prompts/combined.yaml`), its example restricted to `features`.
    package let prompt: Prompt
    package let rendered: RenderedPrompt
    package let window: MessageWindow
    package let input: ConversationInput
    /// The composed schema (`CombinedSchema.compose`) as JSON, sent as the strict `response_format`.
    let schemaJSON: JSONValue
    /// Each feature's own compiled schema, to check (and name) each part of the answer.
    package let schemas: [ExtractionFeature: JSONSchema]
    /// The caller's logger (run, conversation and feature ids as metadata); nil: the provider's own.
    package var logger: Logger? = nil
    /// The request listed open items and its schema has the `known` list: the answer may hold it beside the features
    /// (checked item by item when decoded, so a bad entry costs that entry only).
    package var listsKnown = false

    /// Schema problems of an answer, each prefixed with its feature's property (`$.rsvps…`), and the features whose
    /// part failed, in order; a missing or extra top-level property is charged to the first feature.
    package func problems(_ answer: JSONValue) -> (features: [ExtractionFeature], errors: [String]) {
        guard let object = answer.objectValue else {
            return (Array(features.prefix(1)), ["$: expected an object with the properties \(features.map(\.rawValue).joined(separator: ", "))"])
        }
        var failed: [ExtractionFeature] = []
        var errors: [String] = []
        for key in object.keys where !features.contains(where: { $0.rawValue == key }) && !(listsKnown && key == KnownItems.key) {
            errors.append("$: unexpected property '\(key)'")
        }
        for feature in features {
            guard let part = object[feature.rawValue] else {
                failed.append(feature)
                errors.append("$: missing required property '\(feature.rawValue)'")
                continue
            }
            let found = schemas[feature].map { $0.validate($0.truncatingArrays(part).value) } ?? []
            if !found.isEmpty {
                failed.append(feature)
                errors += found.map { "$.\(feature.rawValue)\($0.path.dropFirst()): \($0.message)" }
            }
        }
        if failed.isEmpty, !errors.isEmpty, let first = features.first { failed = [first] }
        return (failed, errors)
    }
}
