import ArgumentParser

@main
struct MessageAIJobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messageai-jobs",
        abstract: "MessageAI's AI back end: extractors, the proactive assistant and their batch jobs.",
        subcommands: [MigrateCommand.self, DemoCommand.self, ExtractCommand.self, ScanCommand.self, AssistCommand.self, PromptsCommand.self, EvalCommand.self, DatesCommand.self, WorkerCommand.self, RequestCommand.self, BatchCommand.self]
    )
}
