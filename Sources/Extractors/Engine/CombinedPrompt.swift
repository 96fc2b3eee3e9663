import Core
import PromptKit

/// The combined prompt as it is sent: `prompts/combined.yaml` with its list of features filled from the registry, so a
/// new feature joins combined requests through its own prompt file and schema, never through an edit of the combined
/// prompt or its schema file.
///
/// Each feature's line is the `combined_rule` of the feature's chosen prompt version (its pin, or `--prompt-version`),
/// else the feature type's built-in `Extractor.combinedRule`: a new version of `calendar_events` whose
/// `combined_rule` says something new changes the combined request as soon as its pin moves, as it changes the
/// per-feature one.
///
/// The file's system template holds two placeholders that are filled once, when the prompt is loaded:
/// `{{feature_count}}` (the number of features in words) and `{{feature_rules}}` (one `- <id>: <rule>` line per
/// feature, in registry order). Its examples get each feature they lack as an empty answer, and its output schema is
/// the features' schemas side by side (`CombinedSchema.compose`, with the file's description).
enum CombinedPrompt {
    static let countVariable = "feature_count"
    static let rulesVariable = "feature_rules"

    /// `prompt` with the placeholders filled for `features`; `schemas` holds each feature's output schema, `rules` the
    /// `combined_rule` of each feature's chosen prompt (a feature without one gets its type's built-in rule).
    static func expand(_ prompt: Prompt, features: [any Extractor], schemas: [ExtractionFeature: JSONValue],
                       rules: [ExtractionFeature: String] = [:]) -> Prompt {
        let values = [
            countVariable: numberWord(features.count),
            rulesVariable: features.map { "- \($0.id.rawValue): \(rules[$0.id] ?? $0.combinedRule)" }.joined(separator: "\n"),
        ]
        let examples = prompt.examples.map { example -> PromptExample in
            guard var object = example.output.objectValue else { return example }
            for feature in features where object[feature.id.rawValue] == nil {
                if let schema = schemas[feature.id] { object[feature.id.rawValue] = CombinedSchema.emptyAnswer(schema) }
            }
            return PromptExample(input: example.input, output: .object(object))
        }
        var outputSchema = prompt.outputSchema
        let parts = features.compactMap { feature in schemas[feature.id].map { (feature: feature.id, schema: $0) } }
        if parts.count == features.count, var composed = (try? CombinedSchema.compose(parts))?.objectValue {
            if let description = prompt.outputSchema?["description"] { composed["description"] = description }
            outputSchema = .object(composed)
        }
        return Prompt(
            id: prompt.id, version: prompt.version, description: prompt.description, model: prompt.model,
            parameters: prompt.parameters, outputName: prompt.outputName, outputSchema: outputSchema,
            schemaPath: prompt.schemaPath, variables: prompt.variables.filter { values[$0] == nil },
            system: fill(prompt.system, values), user: fill(prompt.user, values), examples: examples,
            sourceFile: prompt.sourceFile)
    }

    /// `text` with the placeholders named in `values` replaced; every other placeholder is kept for rendering.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        Template(text).segments.map { segment -> String in
            switch segment {
            case .text(let literal): literal
            case .variable(let name, _): values[name] ?? "{{\(name)}}"
            case .sectionStart(let name, _): "{{#\(name)}}"
            case .sectionEnd(let name, _): "{{/\(name)}}"
            }
        }.joined()
    }

    /// "five" for 5: the prompt reads "You fill five lists".
    static func numberWord(_ count: Int) -> String {
        let words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
        return words.indices.contains(count) ? words[count] : String(count)
    }
}
