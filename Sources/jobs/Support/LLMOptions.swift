import AgentRuntime
import ArgumentParser
import Foundation
import JobsKit

/// How hard to push the model server; each flag overrides its environment variable for this run.
struct LLMOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Seconds one model request may take before it is abandoned (default: $OPENAI_TIMEOUT_SECONDS, else 60 for OpenAI, 120 for other servers).",
        valueName: "seconds"))
    var llmTimeout: Double?

    @Option(help: ArgumentHelp(
        "Model requests in flight at once from this process, all features, conversations and assistant runs together (default: $OPENAI_MAX_CONCURRENCY, else \(LLMConfiguration.openAIDefaultConcurrency) for OpenAI, 1 for other servers).",
        valueName: "n"))
    var llmConcurrency: Int?

    @Option(help: ArgumentHelp(
        "Seconds one model call may spend on all its attempts and waits (default: $OPENAI_RETRY_BUDGET_SECONDS, else 180).",
        valueName: "seconds"))
    var llmRetryBudget: Double?

    func validate() throws {
        if let llmTimeout, !(1...3_600).contains(llmTimeout) { throw ValidationError("--llm-timeout must be between 1 and 3600 seconds") }
        if let llmConcurrency, !(1...1_024).contains(llmConcurrency) { throw ValidationError("--llm-concurrency must be between 1 and 1024") }
        if let llmRetryBudget, !(1...86_400).contains(llmRetryBudget) { throw ValidationError("--llm-retry-budget must be between 1 and 86400 seconds") }
    }
}

/// `--first-tool-choice`: what the assistant's first model call may do: `auto`, `required`, `none`, or one tool's
/// name (that tool must be called first: "always look at the calendar first").
struct FirstToolChoice: ExpressibleByArgument, Sendable {
    let toolChoice: ToolChoice

    static let auto = FirstToolChoice(toolChoice: .auto)
    static let valueName = "auto|required|none|TOOL"

    private init(toolChoice: ToolChoice) { self.toolChoice = toolChoice }

    init(argument: String) {
        switch argument {
        case "auto": toolChoice = .auto
        case "required": toolChoice = .required
        case "none": toolChoice = .disabled
        default: toolChoice = .function(argument)
        }
    }

    /// The value as a user types it: `--help` prints the default with it (`auto`).
    var defaultValueDescription: String {
        switch toolChoice {
        case .auto: "auto"
        case .required: "required"
        case .disabled: "none"
        case .function(let name): name
        }
    }

    /// A tool name must be one of the assistant's tools (a usage error, exit 64, that lists them).
    func validate() throws {
        guard case .function(let name) = toolChoice, !AssistService.toolNames.contains(name) else { return }
        throw ValidationError("--first-tool-choice '\(name.prefix(80))': expected auto, required, none or a tool name: "
                              + AssistService.toolNames.joined(separator: ", "))
    }
}
