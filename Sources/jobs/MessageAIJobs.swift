import AgentRuntime
import ArgumentParser
import Core
import JobsKit
import Foundation
import PromptKit
import Extractors
import JobsCLI

@main
struct MessageAIJobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messageai-jobs",
        abstract: "MessageAI's AI back end: extractors, the proactive assistant and their batch jobs.",
        subcommands: [MigrateCommand.self, DemoCommand.self, ExtractCommand.self, ScanCommand.self, AssistCommand.self, PromptsCommand.self, EvalCommand.self, DatesCommand.self, WorkerCommand.self, RequestCommand.self, BatchCommand.self, RunsCommand.self, QuarantineCommand.self, ShowCommand.self, SettingsCommand.self]
    )

    /// ArgumentParser's main, with SIGPIPE ignored first: a reader that goes away (`scan | head`) makes writes fail
    /// with EPIPE instead of killing the process after its work is committed. A command that succeeded but could
    /// not write its output exits `ExitStatus.readerWentAway`; a failing command keeps its own status. SIGTERM and
    /// SIGINT close the process's open `job_runs` rows first (`StopSignals`; scan and worker stop gracefully instead).
    static func main() async {
        Console.ignoreSIGPIPE()
        if let help = defaultSubcommandHelp(Array(CommandLine.arguments.dropFirst())) {
            Console.print(help.hasSuffix("\n") ? String(help.dropLast()) : help)
            return
        }
        // Every setting is checked before the flags are (some flags' checks read a variable: --timezone, --shard
        // auto/N), so a bad variable is always reported the one way. Help and the version are printed whatever the
        // environment holds; `settings` reports the bad ones itself, beside the values in effect.
        let arguments = Array(CommandLine.arguments.dropFirst())
        let helpOrVersion = arguments.isEmpty || arguments.contains { ["--help", "-h", "help", "--version"].contains($0) }
        if !helpOrVersion, arguments.first != "settings" { EnvironmentSettings.stopOnProblems(ProcessEnvironment.values) }
        do {
            var command = try parseAsRoot()
            if !(command is ScanCommand || command is WorkerCommand) { StopSignals.closeRunsThenExit() }
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch where CommandOutage.isOutage(error) {
            // The model server or the database is down, not the input wrong: the outage's own status, so a scheduler
            // can tell them apart.
            Console.error("Error: \(error)")
            Foundation.exit(ExitStatus.outage)
        } catch let error as ProviderError where error.isConfiguration {
            // A setting that parses but cannot be used (a pin naming no version, no model server): a usage error too.
            Console.error("Error: \(error)")
            Foundation.exit(ExitStatus.badSetting)
        } catch {
            exit(withError: error)
        }
        if Console.readerWentAway { Foundation.exit(ExitStatus.readerWentAway) }
    }

    // Not ArgumentParser's built-in version flag: that text is fixed at parse time, and this one names the prompt
    // set in use (embedded, or $MESSAGEAI_HOME/prompts), as recorded on job_runs rows. No --prompts here: an option
    // of the root command would take the subcommands' own --prompts.
    @Flag(help: "Show the version, the git commit and the SHA-256 of the prompt set in use ($MESSAGEAI_HOME/prompts, else embedded), and exit.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        Console.print("messageai-jobs \(BuildInfo.version)")
        Console.print("commit: \(BuildInfo.commit)")
        let directory = try ProviderFactory.promptDirectory(nil, environment: ProcessEnvironment.values)
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
