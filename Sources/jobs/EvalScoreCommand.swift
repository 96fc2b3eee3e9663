import ArgumentParser
import JobsKit
import Extractors
import JobsCLI

/// Parent of the offline evaluation commands (`eval score`, later `eval run`).
struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate extractors against labelled chat fixtures.",
        subcommands: [EvalRunCommand.self, EvalScoreCommand.self],
        defaultSubcommand: EvalRunCommand.self
    )
}

extension MessageAIJobs {
    /// `eval --help`, `eval -h` and `help eval`: the options of `eval run`, which `eval` runs by default, then the
    /// subcommands. ArgumentParser would print only the group's subcommand list, hiding every option `eval` takes.
    static func defaultSubcommandHelp(_ arguments: [String]) -> String? {
        let rest = arguments.dropFirst()
        let asks = arguments == ["help", "eval"]
            || (arguments.first == "eval" && rest.contains { $0 == "--help" || $0 == "-h" }
                && !["run", "score", "help"].contains(rest.first ?? ""))
        guard asks else { return nil }
        let group = MessageAIJobs.helpMessage(for: EvalCommand.self)
        let subcommands = group.range(of: "SUBCOMMANDS:").map { String(group[$0.lowerBound...]) } ?? ""
        return "`messageai-jobs eval` runs `eval run` unless `score` is named: its options\nfollow.\n\n"
            + MessageAIJobs.helpMessage(for: EvalRunCommand.self) + "\n" + subcommands
    }
}

/// Scores a predictions file against the fixtures, with no model and no database involved.
struct EvalScoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score predicted extractions (JSONL) against the labelled fixtures.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs eval score --predictions <predictions> [<options>]",
        discussion: """
            Each predictions line is {"fixture": ID, "feature": FEATURE, "items": [...]}, items shaped like the \
            fixture's expected entries; a missing line means nothing was predicted. Items pair one to one when \
            they cite an acceptable source message and, for events, RSVPs and deadlines, have the same date.

            Example: messageai-jobs eval score --fixtures evals/fixtures --predictions run.jsonl --json
            """
    )

    @Option(help: "A fixture YAML file or a directory of them.")
    var fixtures: String = "evals/fixtures"

    @Option(help: "Predictions in JSON Lines, one line per fixture and feature.")
    var predictions: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let loaded: [Fixture]
        do {
            loaded = try FixtureLoader.load(path: fixtures)
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
        let predicted: [String: PredictedItems]
        do {
            predicted = try PredictionsFile.load(path: predictions, fixtureIDs: Set(loaded.map(\.id)))
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
        let score = Scorer.score(fixtures: loaded, predictions: predicted)
        if output.json {
            try Console.printJSON(score)
        } else {
            Console.print(score.table())
        }
    }
}
