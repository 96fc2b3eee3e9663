import ArgumentParser
import Foundation
import Bench
import JobsKit
import JobsCLI

struct BenchProactiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proactive",
        abstract: "The proactive pass on the generated workload: users per second offline, tokens per user with a fake model.",
        discussion: """
            In a scratch schema of the database (dropped afterwards): loads the generated workload, extracts its whole \
            history with the rules, then runs the proactive pass for every user offline, a second time (it must add \
            no finding), and once more with an in-process fake model that calls two tools and ranks every finding \
            (tokens counted as request bytes / 4).

            Example: messageai-bench proactive --conversations 2000 --days 7 --seed 42
            """
    )

    @OptionGroup var workload: WorkloadOptions

    @Option(help: "Users per batch of the pass.")
    var batchSize: Int = 200

    @Option(help: "Assistant runs at once, and the extraction's concurrency.")
    var concurrency: Int = 4

    @Option(help: "Folder of YAML prompts.")
    var prompts: String = "prompts"

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard workload.conversations >= 1 else { throw ValidationError("--conversations must be at least 1") }
        guard (1...5000).contains(batchSize) else { throw ValidationError("--batch-size must be between 1 and 5000") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        output.bootstrap()
        var options = ProactiveBenchmark.Options(conversations: workload.conversations)
        options.days = workload.days
        options.seed = workload.seed
        options.batchSize = batchSize
        options.concurrency = concurrency
        options.promptsPath = prompts
        let result = try await ProactiveBenchmark(database: try database.configuration(BenchEnvironment.values), environment: BenchEnvironment.values).run(options) { Console.error("bench: " + $0) }
        if output.json {
            try Console.printJSON(result)
        } else {
            let kinds = result.findings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            Console.print(String(
                format: """
                    Workload: %d conversations, %d days, seed %llu, %d users (history extracted by the rules in %.2f s).
                    Offline pass: %d users in %.3f s = %.0f users/s; open findings: \(kinds) (%d users with findings).
                    Second pass: %d new, %d resolved.
                    With the fake model: %d runs in %.2f s; %.0f prompt + %.0f completion tokens per user run; %d items dropped.
                    Second night, nothing new: %d users looked at, %d with changed findings, %d model runs (%.2f per changed user).
                    """,
                result.conversations, result.days, result.seed, result.users, result.extractSeconds,
                result.users, result.offlineSeconds, result.usersPerSecond, result.usersWithFindings,
                result.secondPassNew, result.secondPassResolved,
                result.llmRuns, result.llmSeconds, result.promptTokensPerUser, result.completionTokensPerUser, result.droppedItems,
                result.secondNightUsers, result.secondNightChangedUsers, result.secondNightRuns, result.secondNightRunsPerChangedUser))
        }
    }
}
