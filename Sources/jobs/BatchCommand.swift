import AgentRuntime
import ArgumentParser
import Core
import Extractors
import Foundation
import JobsCLI
import JobsKit

/// `batch collect` and `batch status`; submitting is `scan --batch`.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "The nightly scan through OpenAI's Batch API (half the price, answers within 24 h).",
        discussion: """
            `messageai-jobs scan --batch` claims conversations like the scan, renders the same requests, and submits them \
            as one OpenAI batch (one combined request per conversation window, or with --per-feature one per feature and \
            window). Its conversations stay claimed (lease owner batch:<id>) until collected, so a normal scan \
            meanwhile skips them. `batch collect` applies finished batches: each conversation's rows and watermark in one \
            transaction, safe to repeat. A conversation with an error or an invalid answer is released for the next scan.

            Examples:
              messageai-jobs scan --batch
              messageai-jobs batch collect
              messageai-jobs batch status
            """,
        subcommands: [BatchCollectCommand.self, BatchStatusCommand.self]
    )
}

struct BatchCollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Apply the answers of finished batches; batches still running are left alone.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs batch collect [--batch <batch>] [<options>]")

    @Option(name: .customLong("batch"), help: "Only this batch: its id in llm_batches, or its first characters (at least 4).")
    var batchID: IDArgument?

    @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
    var prompts: String?

    @OptionGroup var zones: TimeZoneOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let assembly = try Assembly.command {
            $0.prompts = prompts
            $0.take(zones)
            $0.take(database)
        }
        let summaries = try await assembly.withServices(connections: 2) { services in
            var batch: UUID?
            if let batchID { batch = try await batchID.prefix.resolve(in: .llmBatches, pool: services.pool) }
            return try await services.batchCollect().run(batchID: batch)
        }
        if output.json { try Console.printJSON(summaries) } else { Console.print(BatchReport.text(summaries)) }
        if summaries.contains(where: { $0.failed > 0 }) { throw ExitCode(ExitStatus.someFailed) }
    }
}

struct BatchStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "List batches, newest first.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs batch status [--limit <limit>] [<options>]")

    @Option(help: "How many batches to show.")
    var limit: Int = 20

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000, not \(limit)") }
    }

    func run() async throws {
        output.bootstrap()
        let assembly = try database.assembly()
        let listings = try await assembly.withServices(connections: 1) { try await $0.batchStatus.list(limit: limit) }
        if output.json { try Console.printJSON(listings) } else { Console.print(BatchReport.text(listings)) }
    }
}
