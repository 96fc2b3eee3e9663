import ArgumentParser
import CLISupport
import Foundation

@main
struct MessageAIJobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messageai-jobs",
        abstract: "MessageAI's AI back end: extractors, the proactive assistant and their batch jobs.",
        subcommands: [MigrateCommand.self, DemoCommand.self, ExtractCommand.self, ScanCommand.self, AssistCommand.self, PromptsCommand.self, EvalCommand.self, DatesCommand.self, WorkerCommand.self, RequestCommand.self, BatchCommand.self]
    )

    /// ArgumentParser's main, with SIGPIPE ignored first: a reader that goes away (`scan | head`) makes writes fail
    /// with EPIPE instead of killing the process after its work is committed. A command that succeeded but could
    /// not write its output exits `Console.exitReaderWentAway`; a failing command keeps its own status. SIGTERM and
    /// SIGINT close the process's open `job_runs` rows first (`StopSignals`; scan and worker stop gracefully instead).
    static func main() async {
        Console.ignoreSIGPIPE()
        do {
            var command = try parseAsRoot()
            if !(command is ScanCommand || command is WorkerCommand) { StopSignals.closeRunsThenExit() }
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
        if Console.readerWentAway { Foundation.exit(Console.exitReaderWentAway) }
    }
}
