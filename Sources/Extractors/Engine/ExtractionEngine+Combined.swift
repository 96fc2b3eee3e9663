import AgentRuntime
package import Core
import Logging
package import PromptKit

/// The combined mode (the default of scan, extract, the worker and batch): one request per window for all the chosen features, answered under one
/// strict schema composed from the features' own schemas (`CombinedSchema`). The answer is split, and each part
/// passes its feature's schema and its feature's decoder with every check a per-feature answer gets (cited ids,
/// evidence, dates). The messages are sent once instead of once per feature; the price is one prompt that must do
/// every feature's job; a real-model eval scored it level with per-feature requests (docs/architecture.md, "Request mode").
extension ExtractionEngine {
    /// The active (pinned) version of the combined prompt (`prompts/combined.yaml`), its list of features, example and
    /// schema filled from the registry and each feature's chosen prompt version (its `combined_rule`; `CombinedPrompt`).
    package func combinedPrompt() throws -> Prompt {
        guard let found = prompts.active(id: CombinedSchema.promptID) else {
            throw ExtractionError.promptProblem(
                "no prompt '\(CombinedSchema.promptID)' in the prompt library: combined requests need prompts/combined.yaml")
        }
        var schemas: [ExtractionFeature: JSONValue] = [:]
        var rules: [ExtractionFeature: String] = [:]
        for feature in registry.features {
            let chosen = try? prompt(for: feature.id)
            schemas[feature.id] = chosen?.outputSchema
            rules[feature.id] = chosen?.combinedRule
        }
        return CombinedPrompt.expand(found, features: registry.features, schemas: schemas, rules: rules)
    }

    /// The prompts a run of `features` sends, with their content hashes, for `job_runs.prompts` and eval reports.
    package func fingerprints(_ features: [ExtractionFeature]) -> [PromptFingerprint] {
        var prompts = features.compactMap { try? prompt(for: $0) }
        if mode == .combined, features.count > 1, let combinedPrompt = try? combinedPrompt() { prompts.append(combinedPrompt) }
        return prompts.map(\.fingerprint)
    }

    /// The strict schema a combined request for `features` sends: each feature's schema from its chosen prompt version.
    package func combinedSchema(_ features: [ExtractionFeature]) throws -> JSONValue {
        try CombinedSchema.compose(registry.sorted(features).map { ($0, try prompt(for: $0).outputSchema ?? .object([:])) })
    }

    func extractCombined(_ input: ConversationInput, chosen: [(ExtractionFeature, Prompt, any Extractor)], windows: [PreparedWindow],
                         run initial: ExtractionRun, logger: Logger? = nil) async throws -> ExtractionRun {
        guard let answering = provider as? any CombinedAnswering else {
            throw ExtractionError.promptProblem("the \(provider.name) provider cannot answer combined requests")
        }
        let features = registry.sorted(chosen.map(\.0))
        var compiled: [ExtractionFeature: JSONSchema] = [:]
        for (feature, prompt, _) in chosen {
            guard let schema = schemas["\(prompt.id)@\(prompt.version)"] else {
                throw ExtractionError.promptProblem("\(prompt.sourceFile): missing output schema")
            }
            compiled[feature] = schema
        }
        // The `known` list joins the schema only when the request lists open items (docs/over-nights.md).
        let listsKnown = !shownItems(input, features: features).isEmpty
        let schemaJSON = listsKnown ? try withKnown(try combinedSchema(features), features: features) : try combinedSchema(features)
        let full = try combinedPrompt()
        let prompt = features.count < registry.features.count ? Self.restrictExamples(full, to: features) : full
        let model = provider.modelName(for: prompt)
        var run = initial
        var combinedLogger = logger
        combinedLogger?[metadataKey: "feature"] = "\(features.map(\.rawValue).joined(separator: ","))"
        for feature in features { run.prompts[feature] = PromptRef(id: prompt.id, version: prompt.version, model: model) }
        // Collected per feature and merged in feature order at the end, as the per-feature path does.
        var parts: [ExtractionFeature: Extraction] = [:]
        for prepared in windows {
            let rendered: RenderedPrompt
            do {
                rendered = try prompt.render(prepared.variables, model: model)
            } catch {
                throw ExtractionError.promptProblem("\(prompt.sourceFile): \(error)")
            }
            let answer = try await answering.answerCombined(CombinedAnswerRequest(
                extractors: try features.map { try registry.require($0) }, prompt: prompt, rendered: rendered, window: prepared.window, input: input,
                schemaJSON: schemaJSON, schemas: compiled, logger: combinedLogger, listsKnown: listsKnown))
            for feature in features {
                // Each part passes its feature's gate, rule-based answers included, then its feature's decoder.
                var part = answer.json[feature.rawValue] ?? .null
                var capNotes: [ExtractionNote] = []
                if let schema = compiled[feature] { (part, capNotes) = AnswerCaps.apply(part, schema: schema, feature: feature) }
                let problems = compiled[feature]?.validate(part) ?? []
                guard problems.isEmpty else {
                    throw ExtractionError.invalidOutput(feature: feature, errors: problems.map(\.description))
                }
                var partial = Self.decode(part, try registry.require(feature), window: prepared.window, input: input,
                                          evidence: prepared.evidence)
                partial.notes = capNotes + partial.notes
                parts[feature, default: Extraction()].merge(partial)
            }
            if listsKnown {
                let decoded = Self.decodeKnown(answer.json, registry: registry, window: prepared.window, input: input, features: Set(features))
                run.extraction.known = Self.mergeKnown(run.extraction.known, decoded.verdicts)
                run.extraction.notes += decoded.notes
            }
            for feature in features { run.prompts[feature] = run.prompts[feature]?.served(by: answer.servedModel) }
            run.usage += answer.usage
            run.requests += answer.requests
            run.reasks += answer.reasked ? 1 : 0
            run.windows += 1
        }
        for feature in features { if let part = parts[feature] { run.extraction.merge(part) } }
        return run
    }

    /// The prompt with its examples' answers cut to `features`, so an example never shows a property the schema lacks.
    static func restrictExamples(_ prompt: Prompt, to features: [ExtractionFeature]) -> Prompt {
        Prompt(
            id: prompt.id, version: prompt.version, description: prompt.description, model: prompt.model,
            parameters: prompt.parameters, outputName: prompt.outputName, outputSchema: prompt.outputSchema,
            schemaPath: prompt.schemaPath, variables: prompt.variables, system: prompt.system, user: prompt.user,
            examples: prompt.examples.map { PromptExample(input: $0.input, output: CombinedSchema.restrict($0.output, to: features)) },
            sourceFile: prompt.sourceFile)
    }
}
