import AgentRuntime
import ArgumentParser
import Extractors
import Foundation
import JobsKit
import PromptKit

struct AssistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist",
        abstract: "Run the proactive assistant for one user.",
        discussion: """
            The assistant is an OpenAI tool-calling agent in a bounded loop (at most --max-steps model calls, a token
            budget and a time limit). Its tools are bound to the user: recent messages, upcoming calendar events and
            their conflicts, pending RSVPs, upcoming deadlines, and reminders (listed, or created without duplicates,
            at most 3 per run). It never sees another user's rows. Its findings go to assistant_findings, each step to
            agent_traces. Needs an LLM (OPENAI_API_KEY or OPENAI_BASE_URL).

            Example: messageai-jobs assist --user 00000000-de01-4000-8000-000000000001
            """
    )

    @Option(help: "The user's id (a UUID).")
    var user: String

    @Option(help: "Most model calls in one run; the last is made with tool_choice none so the model must answer.")
    var maxSteps: Int = 5

    @Option(help: "Model (default: the assistant prompt's model, or $OPENAI_MODEL).")
    var model: String?

    @Option(help: "Folder of YAML prompts (default: prompts, else $MESSAGEAI_HOME/prompts).")
    var prompts: String = "prompts"

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var zones: TimeZoneOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard UUID(uuidString: user) != nil else { throw ValidationError("user id '\(user)' is not a UUID") }
        guard (1...20).contains(maxSteps) else { throw ValidationError("--max-steps must be between 1 and 20") }
    }

    func run() async throws {
        output.bootstrap()
        try zones.apply()
        guard let configuration = LLMConfiguration.fromEnvironment() else { throw ProviderNotConfigured() }
        let library: PromptLibrary
        do {
            library = try PromptLibrary.load(directory: try ProviderFactory.promptDirectory(prompts))
        } catch {
            throw ExtractionError.promptProblem("the prompts do not load:\n\(error)")
        }
        let summary = try await database.withPool { pool in
            var service = AssistService(
                pool: pool, client: OpenAIClient(configuration: configuration), prompts: library,
                structuredOutput: configuration.structuredOutput, modelOverride: model ?? configuration.defaultModel)
            service.limits.maxSteps = maxSteps
            return try await service.run(userID: UUID(uuidString: user)!)
        }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print(AssistReport.text(summary))
        }
        if summary.findings == nil {
            // The report went to stdout; the reason for the failing exit status belongs on stderr too.
            Console.error("assist: no valid answer for user \(user): \(summary.stopReason) (job_runs \(summary.runID.uuidString.lowercased()))")
            throw ExitCode(2)
        }
    }
}
