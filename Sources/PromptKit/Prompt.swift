import Foundation
package import Core

// # Prompt files (`prompts/*.yaml`)
//
// One YAML file per prompt version. Every key below is checked; an unknown key is an error
// (typos must not silently drop a setting).
//
// ```yaml
// id: calendar_events          # required, [a-z][a-z0-9_]*; several files may share an id…
// version: 3                   # required positive integer; …but (id, version) is unique
// description: One line for `prompts list` and reviewers.     # required
// model: gpt-4o-mini           # required default model; callers may override per run
// parameters:                  # optional; each key optional
//   temperature: 0             #   number in 0...2
//   seed: 7                    #   integer (best-effort determinism on OpenAI)
//   max_tokens: 2000           #   positive integer
// output:                      # optional (a free-text prompt has none)
//   name: calendar_events      #   response_format name: [A-Za-z0-9_-]{1,64}
//   schema: ../schemas/calendar_events.schema.json   # relative to this YAML file
// variables: [messages, today] # required: what the templates may use; each must be in the
//                              # library's allowed set (`PromptLibrary.standardVariables`)
// system: |                    # required template
//   Today is {{today}}.
// user: |                      # required template
//   <messages>
//   {{messages}}
//   </messages>
// combined_rule: dated occasions ...  # optional, a feature prompt's line in the combined request
//                              #   (`- <id>: <rule>`): one paragraph, no placeholders. Absent: the
//                              #   feature type's built-in rule (`Extractor.combinedRule`).
// examples:                    # optional few-shot pairs, sent before the real user message
//   - input: |                 #   literal text (not a template), shown as a user message
//       ...
//     output: {events: []}     #   the ideal answer, shown as an assistant message; must be an
//                              #   object and must satisfy the output schema
// ```
//
// Templates substitute `{{name}}` or `{{ name }}` in a single pass: substituted values are never
// rescanned, so text from chat participants cannot inject placeholders. `{{#name}}` … `{{/name}}` is a section,
// rendered only when `name`'s value is not empty (a marker alone on its line takes its line with it; sections do not
// nest): a version adding one renders as the version without it when there is nothing to show. Any other `{{` is an
// error.
// Scalars follow `YAMLJSON` rules: quote nothing special, `17:30` and `no` stay strings.

/// Sampling settings a prompt asks for; nil means "the server's default".
package struct PromptParameters: Sendable, Hashable, Codable {
    package var temperature: Double?
    package var seed: Int?
    package var maxTokens: Int?

    package init(temperature: Double? = nil, seed: Int? = nil, maxTokens: Int? = nil) {
        self.temperature = temperature
        self.seed = seed
        self.maxTokens = maxTokens
    }
}

/// One few-shot pair: what the model is shown and the answer it should have given.
package struct PromptExample: Sendable, Hashable {
    package let input: String
    package let output: JSONValue

    package init(input: String, output: JSONValue) {
        self.input = input
        self.output = output
    }
}

/// A validated prompt version, ready to render.
package struct Prompt: Sendable, Hashable {
    package let id: String
    package let version: Int
    package let description: String
    package let model: String
    package let parameters: PromptParameters
    /// The `response_format` name; nil for free-text prompts.
    package let outputName: String?
    package let outputSchema: JSONValue?
    /// `outputSchema` as sent in a strict `response_format` (`StrictSchemaLint.compactWireSchema`), made once per
    /// prompt, not on every request.
    package let wireOutputSchema: JSONValue?
    /// The schema path as written in the YAML (relative to `sourceFile`).
    package let schemaPath: String?
    package let variables: [String]
    package let system: String
    package let user: String
    package let examples: [PromptExample]
    /// A feature prompt's line in the combined request (`combined_rule`); nil: the feature type's built-in rule.
    /// Pinning another version of the feature therefore changes the combined request too.
    package let combinedRule: String?
    /// The file it came from, as shown in error messages.
    package let sourceFile: String

    let systemTemplate: Template
    let userTemplate: Template
    /// Each example's answer as sent, serialized once.
    let exampleAnswers: [String]

    package init(
        id: String, version: Int, description: String, model: String, parameters: PromptParameters = PromptParameters(),
        outputName: String? = nil, outputSchema: JSONValue? = nil, schemaPath: String? = nil, variables: [String],
        system: String, user: String, examples: [PromptExample] = [], combinedRule: String? = nil, sourceFile: String = "<memory>"
    ) {
        self.id = id
        self.version = version
        self.description = description
        self.model = model
        self.parameters = parameters
        self.outputName = outputName
        self.outputSchema = outputSchema
        self.wireOutputSchema = outputSchema.map(StrictSchemaLint.compactWireSchema)
        self.schemaPath = schemaPath
        self.variables = variables
        self.system = system
        self.user = user
        self.examples = examples
        self.combinedRule = combinedRule
        self.sourceFile = sourceFile
        self.systemTemplate = Template(system)
        self.userTemplate = Template(user)
        self.exampleAnswers = examples.map { $0.output.serialized() }
    }

    /// Variables the templates actually use, in order of first use (system first).
    package var usedVariables: [String] {
        var seen = Set<String>()
        return (systemTemplate.variables + userTemplate.variables).filter { seen.insert($0).inserted }
    }

    /// Builds the chat messages: system, each example as a user/assistant pair, then the user message.
    ///
    /// Values are inserted verbatim (callers delimit untrusted text); values for variables the
    /// templates do not use are ignored. Same input, byte-identical output.
    package func render(_ values: [String: String], model: String? = nil) throws(RenderError) -> RenderedPrompt {
        let system = systemTemplate.render(values)
        let user = userTemplate.render(values)
        var missing = system.missing
        for name in user.missing where !missing.contains(name) { missing.append(name) }
        guard missing.isEmpty else { throw RenderError(promptID: id, promptVersion: version, missing: missing) }

        var messages = [RenderedMessage(role: .system, content: system.text)]
        for (example, answer) in zip(examples, exampleAnswers) {
            messages.append(RenderedMessage(role: .user, content: example.input))
            messages.append(RenderedMessage(role: .assistant, content: answer))
        }
        messages.append(RenderedMessage(role: .user, content: user.text))
        return RenderedPrompt(
            promptID: id, promptVersion: version, model: model ?? self.model,
            temperature: parameters.temperature, seed: parameters.seed, maxTokens: parameters.maxTokens,
            messages: messages, outputName: outputName, outputSchema: outputSchema
        )
    }
}

/// A render was asked for without a value some placeholder needs.
package struct RenderError: Error, Sendable, Hashable, CustomStringConvertible {
    package let promptID: String
    package let promptVersion: Int
    package let missing: [String]

    package var description: String {
        "prompt \(promptID) v\(promptVersion): no value for " + missing.map { "'{{\($0)}}'" }.joined(separator: ", ")
    }
}
