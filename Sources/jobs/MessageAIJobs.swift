import ArgumentParser
import BuildStamp
import CLISupport
import JobsKit
import PromptKit

@main
struct MessageAIJobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messageai-jobs",
        abstract: "MessageAI's AI back end: extractors, the proactive assistant and their batch jobs.",
        subcommands: [MigrateCommand.self, DemoCommand.self, ExtractCommand.self, ScanCommand.self, AssistCommand.self, PromptsCommand.self, EvalCommand.self, DatesCommand.self, WorkerCommand.self, RequestCommand.self, BatchCommand.self]
    )

    // Not ArgumentParser's built-in version flag: that text is fixed at parse time, and this one names the prompt
    // set in use (embedded, or $MESSAGEAI_HOME/prompts), as recorded on job_runs rows. No --prompts here: an option
    // of the root command would take the subcommands' own --prompts.
    @Flag(help: "Show the version, the git commit and the SHA-256 of the prompt set in use ($MESSAGEAI_HOME/prompts, else embedded), and exit.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        Console.print("messageai-jobs \(BuildInfo.version)")
        Console.print("commit: \(BuildInfo.commit)")
        let directory = try ProviderFactory.promptDirectory(nil)
        let source = ProviderFactory.describe(promptDirectory: directory)
        do {
            let library = try PromptLibrary.load(directory: directory)
            Console.print("prompts: \(source), sha256 \(library.fingerprint ?? "-")")
        } catch {
            Console.error("prompts: \(source) do not load:\n\(error)")
            throw ExitCode.failure
        }
    }
}
