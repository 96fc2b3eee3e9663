import AgentRuntime
import ArgumentParser
import JobsKit
import Core
import Extractors
import Foundation
import PromptKit
import Evaluation
import JobsCLI

/// Prints the exact request body production would send for one prompt: an extractor's over one fixture, the
/// assistant's first step for one user.
struct PromptsRenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Print the Chat Completions request body for one extractor prompt (or `combined`) over one fixture's first window, or the assistant's first request for one user.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs prompts render --prompt <prompt> --fixture <fixture>\n       messageai-jobs prompts render --prompt assistant --user <user>",
        discussion: """
            An extractor's body comes from running the real engine with a client that records the first request, so \
            it is exactly what would be sent (model, messages, response_format, token limit), minus the HTTP headers.

            `--prompt assistant --user ID` prints the first request `assist --user ID` would send: the system prompt, \
            the user's context message with the findings code computes for them now, and the tools. It reads the \
            database (DATABASE_URL or PG*) and keeps nothing: the findings are refreshed in a transaction that is \
            rolled back. `--user demo` is the demo's parent (after `messageai-jobs demo`). No model is called.

            Without @VERSION the version pinned in prompts/active.yaml is rendered, as production would send it.

            Examples:
              messageai-jobs prompts render --prompt calendar_events@1 --fixture class-picnic
              messageai-jobs prompts render --prompt combined --fixture class-picnic
              messageai-jobs prompts render --prompt assistant --user demo
            """
    )

    @Option(help: "An extractor prompt id, `combined` or `assistant`, optionally with @VERSION (default: the pinned version).")
    var prompt: String

    @Option(help: "The id of the fixture whose messages fill an extractor prompt.")
    var fixture: String?

    @Option(help: "With --prompt assistant: the user's id (a UUID or its first characters; or 'demo' for the demo's parent), read from the database.")
    var user: UserArgument?

    @Option(help: ArgumentHelp("With --prompt assistant: the moment the run starts (default: now).", valueName: "ISO-8601 instant"))
    var now: String?

    @Option(help: ArgumentHelp("With --prompt assistant: tool_choice of the first call, as `assist --first-tool-choice`.", valueName: FirstToolChoice.valueName))
    var firstToolChoice: FirstToolChoice = .auto

    @Option(help: "A fixture YAML file or a directory of them.")
    var fixtures: String = "evals/fixtures"

    @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
    var prompts: String?

    @Option(name: .customLong("structured-output"), help: "json_schema or json_object (default: $OPENAI_STRUCTURED_OUTPUT, else json_schema).")
    var structuredOutput: String?

    @Option(help: "Model for the request (default: $OPENAI_MODEL, else the prompt's model).")
    var model: String?

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        let assistant = prompt.split(separator: "@", maxSplits: 1).first == "assistant"
        if assistant {
            guard user != nil else { throw ValidationError("--prompt assistant needs --user ID (or --user demo)") }
            guard fixture == nil else { throw ValidationError("--fixture fills extractor prompts; the assistant is rendered for --user") }
            try firstToolChoice.validate()
            if let now, ISO8601Instant.parse(now) == nil {
                throw ValidationError("--now '\(now)': expected an ISO-8601 instant with an offset, e.g. 2026-03-04T17:00:00Z")
            }
        } else {
            guard fixture != nil else { throw ValidationError("--prompt \(prompt) needs --fixture ID") }
            guard user == nil, now == nil else { throw ValidationError("--user and --now are for --prompt assistant") }
        }
    }

    func run() async throws {
        let environment = ProcessEnvironment.values
        do {
            if let user { return try await renderAssistant(user, environment: environment) }
            let fixture = self.fixture ?? ""
            let (id, version) = try Self.parsePrompt(prompt)
            let modeName = structuredOutput ?? environment["OPENAI_STRUCTURED_OUTPUT"] ?? StructuredOutputMode.jsonSchema.rawValue
            guard let mode = StructuredOutputMode(rawValue: modeName) else {
                throw EvalRunError("--structured-output '\(modeName)': expected json_schema or json_object")
            }
            let tokenField = environment["OPENAI_MAX_TOKENS_FIELD"].flatMap(MaxTokensField.init(rawValue:)) ?? .maxCompletionTokens
            // The caps go on the wire for a server that builds a grammar from the schema (OPENAI_SCHEMA_BOUNDS).
            let schemaBounds = (try? LLMConfiguration.fromEnvironment(environment))?.schemaBounds ?? false
            let chosen = try PromptRequestCapture.fixture(fixture, from: fixtures, environment: environment)
            let library = try ProviderFactory.library(promptsPath: prompts, environment: environment)
            let modelOverride = model ?? environment["OPENAI_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
            let body: JSONValue
            if let feature = id {
                body = try await PromptRequestCapture.body(
                    feature: feature, version: version, fixture: chosen, prompts: library, structuredOutput: mode,
                    modelOverride: modelOverride, tokenField: tokenField, schemaBounds: schemaBounds)
            } else {
                var pinned = library
                if let version { pinned = try library.pinning(PromptPins([CombinedSchema.promptID: version]), source: "--prompt") }
                body = try await PromptRequestCapture.combinedBody(
                    fixture: chosen, prompts: pinned, structuredOutput: mode, modelOverride: modelOverride, tokenField: tokenField,
                    schemaBounds: schemaBounds)
            }
            Console.print(body.serialized(pretty: true))
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
    }

    /// The assistant's first request for one user, built by `AssistService` with a client that is never called.
    private func renderAssistant(_ user: UserArgument, environment: [String: String]) async throws {
        var configuration: LLMConfiguration
        do {
            configuration = try LLMConfiguration.fromEnvironment(environment) ?? LLMConfiguration()
        } catch {
            throw EvalRunError(error.description)
        }
        if let structuredOutput {
            guard let mode = StructuredOutputMode(rawValue: structuredOutput) else {
                throw EvalRunError("--structured-output '\(structuredOutput)': expected json_schema or json_object")
            }
            configuration.structuredOutput = mode
        }
        var library = try ProviderFactory.library(promptsPath: prompts, environment: environment)
        let parts = prompt.split(separator: "@", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            guard let version = Int(parts[1]), version > 0 else {
                throw EvalRunError("--prompt '\(prompt)': the version after @ must be a positive integer")
            }
            library = try library.pinning(PromptPins(["assistant": version]), source: "--prompt")
        }
        let at = now.flatMap(ISO8601Instant.parse) ?? Date()
        let tokenField = configuration.maxTokensField
        let body = try await database.assembly().withServices(connections: 1) { services in
            var service = AssistantFactory.service(configuration, pool: services.pool, prompts: library, modelOverride: model, client: NoModelCalls())
            service.firstToolChoice = firstToolChoice.toolChoice
            return try await service.firstRequest(userID: try await user.resolve(pool: services.pool), now: at).body(tokenField: tokenField)
        }
        Console.print(body.serialized(pretty: true))
    }

    /// The preview's client: the request is built, never sent.
    private struct NoModelCalls: ChatCompleting {
        func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
            throw EvalRunError("prompts render calls no model")
        }
    }

    /// `calendar_events` or `calendar_events@2`; a nil feature is the combined prompt.
    static func parsePrompt(_ text: String) throws -> (ExtractionFeature?, Int?) {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        let feature = parts.first.flatMap(ExtractionFeature.named)
        guard feature != nil || parts.first == CombinedSchema.promptID else {
            throw EvalRunError("--prompt '\(text)': not a prompt render knows (known: "
                               + "\((ExtractionFeature.allCases.map(\.rawValue) + [CombinedSchema.promptID, "assistant"]).joined(separator: ", ")))")
        }
        guard parts.count == 2 else { return (feature, nil) }
        guard let version = Int(parts[1]), version > 0 else {
            throw EvalRunError("--prompt '\(text)': the version after @ must be a positive integer")
        }
        return (feature, version)
    }
}
