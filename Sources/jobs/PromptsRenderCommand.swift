import AgentRuntime
import ArgumentParser
import CLISupport
import Evals
import Extractors
import Foundation
import JobsEval
import JobsKit
import JSONKit
import PromptKit

/// Prints the exact request body the eval runner (and production) would send for one prompt and fixture.
struct PromptsRenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Print the Chat Completions request body for one extractor prompt (or `combined`) over one fixture's first window.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs prompts render --prompt <prompt> --fixture <fixture>\n[<options>]",
        discussion: """
            The body comes from running the real engine with a client that records the first request, so it is \
            exactly what would be sent (model, messages, response_format, token limit), minus the HTTP headers.

            Without @VERSION the version pinned in prompts/active.yaml is rendered, as production would send it.

            Examples:
              messageai-jobs prompts render --prompt calendar_events@1 --fixture class-picnic
              messageai-jobs prompts render --prompt combined --fixture class-picnic
            """
    )

    @Option(help: "An extractor prompt id or `combined`, optionally with @VERSION (default: the pinned version).")
    var prompt: String

    @Option(help: "The id of the fixture whose messages fill the prompt.")
    var fixture: String

    @Option(help: "A fixture YAML file or a directory of them.")
    var fixtures: String = "evals/fixtures"

    @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
    var prompts: String?

    @Option(name: .customLong("structured-output"), help: "json_schema or json_object (default: $OPENAI_STRUCTURED_OUTPUT, else json_schema).")
    var structuredOutput: String?

    @Option(help: "Model for the request (default: $OPENAI_MODEL, else the prompt's model).")
    var model: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        do {
            let (id, version) = try Self.parsePrompt(prompt)
            let modeName = structuredOutput ?? environment["OPENAI_STRUCTURED_OUTPUT"] ?? StructuredOutputMode.jsonSchema.rawValue
            guard let mode = StructuredOutputMode(rawValue: modeName) else {
                throw EvalRunError("--structured-output '\(modeName)': expected json_schema or json_object")
            }
            let tokenField = environment["OPENAI_MAX_TOKENS_FIELD"].flatMap(MaxTokensField.init(rawValue:)) ?? .maxCompletionTokens
            let loaded: [Fixture]
            do {
                loaded = try FixtureLoader.load(path: ProviderFactory.homePath(fixtures))
            } catch {
                throw EvalRunError("the fixtures do not load:\n\(error)")
            }
            guard let chosen = loaded.first(where: { $0.id == fixture }) else {
                throw EvalRunError("no fixture '\(fixture)' in \(fixtures) (\(loaded.count) fixtures, e.g. \(loaded.prefix(3).map(\.id).joined(separator: ", ")))")
            }
            let library = try ProviderFactory.library(promptsPath: prompts)
            let modelOverride = model ?? environment["OPENAI_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
            let body: JSONValue
            if let feature = id {
                body = try await PromptRequestCapture.body(
                    feature: feature, version: version, fixture: chosen, prompts: library, structuredOutput: mode,
                    modelOverride: modelOverride, tokenField: tokenField)
            } else {
                var pinned = library
                if let version { pinned = try library.pinning(PromptPins([CombinedSchema.promptID: version]), source: "--prompt") }
                body = try await PromptRequestCapture.combinedBody(
                    fixture: chosen, prompts: pinned, structuredOutput: mode, modelOverride: modelOverride, tokenField: tokenField)
            }
            Console.print(body.serialized(pretty: true))
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
    }

    /// `calendar_events` or `calendar_events@2`; a nil feature is the combined prompt.
    static func parsePrompt(_ text: String) throws -> (ExtractionFeature?, Int?) {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        let feature = parts.first.flatMap(ExtractionFeature.named)
        guard feature != nil || parts.first == CombinedSchema.promptID else {
            throw EvalRunError("--prompt '\(text)': not an extractor prompt (known: "
                               + "\((ExtractionFeature.allCases.map(\.rawValue) + [CombinedSchema.promptID]).joined(separator: ", ")))")
        }
        guard parts.count == 2 else { return (feature, nil) }
        guard let version = Int(parts[1]), version > 0 else {
            throw EvalRunError("--prompt '\(text)': the version after @ must be a positive integer")
        }
        return (feature, version)
    }
}
