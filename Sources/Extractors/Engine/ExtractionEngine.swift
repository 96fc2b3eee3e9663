package import AgentRuntime
import Core
import Foundation
package import Logging
package import PromptKit

/// Which prompt produced a feature's items, for provenance on every row.
package struct PromptRef: Sendable, Hashable, Codable {
    package let id: String
    package let version: Int
    package let model: String
    /// The prompt's content hash (`Prompt.fingerprint`), where a report records it.
    package let sha256: String?

    package init(id: String, version: Int, model: String, sha256: String? = nil) {
        self.id = id
        self.version = version
        self.model = model
        self.sha256 = sha256
    }

    /// The same prompt as served by `model` (the name the server answered with, `ProviderAnswer.servedModel`), or
    /// unchanged when the server named none: rows record the model that answered, not the one asked for.
    package func served(by model: String?) -> PromptRef {
        guard let model, model != self.model else { return self }
        return PromptRef(id: id, version: version, model: model, sha256: sha256)
    }
}

/// The outcome of extracting some features from one conversation.
package struct ExtractionRun: Sendable, Codable {
    package var extraction = Extraction()
    package var usage = TokenUsage()
    package var requests = 0
    package var reasks = 0
    package var windows = 0
    package var prompts: [ExtractionFeature: PromptRef] = [:]

    package init() {}
}

/// Runs the extractors on one conversation: for each window, render the prompt (one combined request for every
/// feature by default, or one per feature: `mode`), get an answer from the provider, validate it against the
/// schema, and decode it with cited ids, evidence and dates checked. Never one call per user.
package struct ExtractionEngine: Sendable {
    package let prompts: PromptLibrary
    package let provider: any AnswerProvider
    package var windowing: Windowing
    /// A prompt version per feature; absent means the highest version in the library.
    package var promptVersions: [ExtractionFeature: Int]
    /// The features this engine can run; each decodes its own answers (`Extractor`).
    package let registry: FeatureRegistry
    /// Combined: one request per window for all the features (`ExtractionEngine+Combined`). The engine itself starts
    /// per-feature, so a library caller or test states the mode it means; the commands set `RequestMode.productDefault`
    /// (combined) unless `--per-feature` or `MESSAGEAI_REQUEST_MODE` says otherwise.
    package var mode = RequestMode.perFeature
    let schemas: [String: JSONSchema]

    package init(prompts: PromptLibrary, provider: any AnswerProvider, windowing: Windowing = Windowing(),
                promptVersions: [ExtractionFeature: Int] = [:], registry: FeatureRegistry = .shipping) throws {
        self.prompts = prompts
        self.provider = provider
        self.windowing = windowing
        self.promptVersions = promptVersions
        self.registry = registry
        var schemas: [String: JSONSchema] = [:]
        for prompt in prompts.all {
            guard let schema = prompt.outputSchema else { continue }
            do {
                schemas["\(prompt.id)@\(prompt.version)"] = try JSONSchema(schema)
            } catch {
                throw ExtractionError.promptProblem("\(prompt.sourceFile): its output schema does not compile: \(error)")
            }
        }
        self.schemas = schemas
    }

    package func prompt(for feature: ExtractionFeature) throws -> Prompt {
        let found = promptVersions[feature].map { prompts.prompt(id: feature.promptID, version: $0) } ?? prompts.active(id: feature.promptID)
        guard let found else {
            let version = promptVersions[feature].map { " version \($0)" } ?? ""
            throw ExtractionError.promptProblem("no prompt '\(feature.promptID)'\(version) in the prompt library")
        }
        guard found.outputSchema != nil else {
            throw ExtractionError.promptProblem("\(found.sourceFile): an extractor prompt needs an output schema")
        }
        return found
    }

    /// - Parameter logger: the caller's logger (its run and conversation ids); the model client's lines about each
    ///   feature go to it with the `feature` added. Nil: the client's own logger.
    package func extract(_ input: ConversationInput, features: [ExtractionFeature], logger: Logger? = nil) async throws -> ExtractionRun {
        let chosen = try features.map { ($0, try prompt(for: $0), try registry.require($0)) }
        var run = ExtractionRun()
        for (feature, prompt, _) in chosen {
            run.prompts[feature] = PromptRef(id: prompt.id, version: prompt.version, model: provider.modelName(for: prompt))
        }
        guard !input.messages.isEmpty, !chosen.isEmpty else { return run }
        // Every feature reads the same windows: build and render each once, not once per feature.
        let listed = Set(chosen.map(\.0))
        let windows = windowing.windows(input.messages).map { range in
            let window = MessageWindow(messages: Array(input.messages[range]), participants: input.participants)
            return PreparedWindow(window: window, variables: Self.variables(input: input, window: window, features: listed),
                                  evidence: EvidenceIndex(window))
        }
        if mode == .combined, chosen.count > 1 {
            return try await extractCombined(input, chosen: chosen, windows: windows, run: run, logger: logger)
        }
        // Features are independent: ask for them concurrently, then merge in feature order.
        let results = try await withThrowingTaskGroup(of: (ExtractionFeature, ExtractionRun).self) { group in
            for (feature, prompt, parent) in chosen {
                var featureLogger = logger
                featureLogger?[metadataKey: "feature"] = "\(feature.rawValue)"
                group.addTask { [featureLogger] in
                    (feature, try await extract(parent, prompt: prompt, input: input, windows: windows, logger: featureLogger))
                }
            }
            var collected: [ExtractionFeature: ExtractionRun] = [:]
            for try await (feature, partial) in group { collected[feature] = partial }
            return collected
        }
        for feature in registry.sorted(features) {
            guard let partial = results[feature] else { continue }
            run.prompts[feature] = partial.prompts[feature] ?? run.prompts[feature]
            run.extraction.merge(partial.extraction)
            run.extraction.known += partial.extraction.known
            run.usage += partial.usage
            run.requests += partial.requests
            run.reasks += partial.reasks
            run.windows = max(run.windows, partial.windows)
        }
        return run
    }

    /// A window of the conversation with the prompt variables rendered from it.
    struct PreparedWindow: Sendable {
        let window: MessageWindow
        let variables: [String: String]
        /// The window's texts normalised for the evidence check, shared by every feature's decode context.
        let evidence: EvidenceIndex
    }

    private func extract(_ parent: any Extractor, prompt: Prompt, input: ConversationInput,
                         windows: [PreparedWindow], logger: Logger?) async throws -> ExtractionRun {
        let feature = parent.id
        guard let schema = schemas["\(prompt.id)@\(prompt.version)"] else {
            throw ExtractionError.promptProblem("\(prompt.sourceFile): missing output schema")
        }
        var run = ExtractionRun()
        var served: String?
        // The feature's open items, and the `known` list in its schema, only when it has any (docs/over-nights.md).
        let listsKnown = !input.state.shownItems(features: [feature]).isEmpty
        let sentSchema: JSONValue? = if listsKnown { try withKnown(prompt.outputSchema ?? .object([:]), features: [feature]) } else { Optional.none }
        for prepared in windows {
            let window = prepared.window
            var variables = prepared.variables
            variables[Self.openItemsVariable] = Self.openItemsValue(input, window: window, features: [feature])
            let rendered: RenderedPrompt
            do {
                rendered = try prompt.render(variables, model: provider.modelName(for: prompt))
            } catch {
                throw ExtractionError.promptProblem("\(prompt.sourceFile): \(error)")
            }
            let answer = try await provider.answer(AnswerRequest(
                extractor: parent, prompt: prompt, rendered: rendered, window: window, input: input, schema: schema, logger: logger,
                sentSchema: sentSchema))
            let (items, known): (JSONValue, JSONValue?) = if listsKnown { KnownItems.split(answer.json) } else { (answer.json, Optional.none) }
            // Rule-based answers pass the same gate as the model's.
            let capped = AnswerCaps.apply(items, schema: schema, feature: feature)
            let problems = schema.validate(capped.json)
            guard problems.isEmpty else {
                throw ExtractionError.invalidOutput(feature: feature, errors: problems.map(\.description))
            }
            var partial = Self.decode(capped.json, parent, window: window, input: input, evidence: prepared.evidence)
            partial.notes = capped.notes + partial.notes
            if let known {
                let decoded = Self.decodeKnown([KnownItems.key: known], registry: registry, window: window, input: input, features: [feature])
                run.extraction.known = Self.mergeKnown(run.extraction.known, decoded.verdicts)
                partial.notes += decoded.notes
            }
            run.extraction.merge(partial)
            served = answer.servedModel ?? served
            run.usage += answer.usage
            run.requests += answer.requests
            run.reasks += answer.reasked ? 1 : 0
            run.windows += 1
        }
        run.prompts[feature] = PromptRef(id: prompt.id, version: prompt.version, model: provider.modelName(for: prompt)).served(by: served)
        return run
    }

    /// The per-window decode step: a schema-valid answer becomes `parent`'s items, checked, with their notes.
    /// `evidence` is the window's index when the caller built one to share across features; nil builds it here.
    static func decode(_ answer: JSONValue, _ parent: any Extractor, window: MessageWindow, input: ConversationInput,
                       evidence: EvidenceIndex? = nil) -> Extraction {
        var context = DecodeContext(feature: parent.id, window: window, input: input, evidence: evidence)
        var partial = Extraction()
        parent.decode(answer, into: &partial, context: &context)
        partial.notes = context.notes
        partial.grounding[parent.id] = context.tally
        return partial
    }

    /// The variable holding a request's open items (`{{#open_items}}` … `{{/open_items}}` in the prompts).
    static let openItemsVariable = "open_items"

    /// The values every prompt may use. Message text only ever enters through `messages`, escaped. `open_items`: the
    /// open items of `features` (a per-feature request replaces it with its own feature's).
    static func variables(input: ConversationInput, window: MessageWindow, features: Set<ExtractionFeature>) -> [String: String] {
        let today = LocalDate(input.now, in: input.timeZone)
        return [
            openItemsVariable: openItemsValue(input, window: window, features: features),
            "messages": window.renderMessages(participants: input.participants, timeZone: input.timeZone),
            "today": today.iso,
            "weekday": today.weekdayName,
            "now": ISO8601Instant.string(input.now, in: input.timeZone),
            "timezone": input.timeZone.identifier,
            "user_name": input.viewer.map { MessageWindow.escapeAngles($0.name) } ?? "(all participants)",
            // "none" when the prompt takes no one's view (the nightly scan), so "(alias {{user_id}})" still reads.
            "user_id": input.viewer.flatMap { window.alias(ofParticipant: $0.id) } ?? "none",
            "conversation_name": MessageWindow.escapeAngles(input.name),
            "participants": window.renderParticipants(input.participants),
        ]
    }
}
