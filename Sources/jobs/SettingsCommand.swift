import ArgumentParser
import JobsKit
import Foundation
import JobsCLI
import Core

struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Every environment variable this binary reads: the value in effect, where it came from, its values, default and flag.",
        // Written out: the parser's own usage line lists every flag and runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs settings [<a command's flags>] [--json]",
        discussion: """
            Each variable's value in effect (secrets masked: a password or key is never printed) and where it came \
            from: environment, flag or default. Pass a command's flags (--llm-timeout 30, --database-url URL, ...) to \
            see what that command would run with. Every command checks all the variables before it does anything: a \
            variable set to a value it does not take stops the command (exit code 64) with `NAME='value' is not \
            valid: expected ...`. `settings` lists every bad one the same way and exits 64. An empty variable counts \
            as unset.

            Examples:
              messageai-jobs settings
              messageai-jobs settings --llm-timeout 30 --per-feature --json
            """
    )

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Model for every prompt (overrides $OPENAI_MODEL).")
    var model: String?
    @OptionGroup var prompts: PromptOptions
    // Not TimeZoneOptions: its check reads MESSAGEAI_TIMEZONE while parsing, and `settings` reports a bad one itself.
    @Option(name: .customLong("timezone"), help: "Time zone of users without a user_settings row (overrides $MESSAGEAI_TIMEZONE).")
    var timeZone: String?
    @OptionGroup var llm: LLMOptions
    @Flag(help: "One combined request per window (overrides $MESSAGEAI_REQUEST_MODE).")
    var combined = false
    @Flag(help: "One request per feature and window (overrides $MESSAGEAI_REQUEST_MODE).")
    var perFeature = false
    @OptionGroup var output: OutputOptions

    /// The flags given, keyed by the variable each overrides.
    var flagValues: [String: String] {
        var values: [String: String] = [:]
        values["DATABASE_URL"] = database.databaseURL
        values["OPENAI_MODEL"] = model
        values["MESSAGEAI_HOME"] = prompts.prompts.map { "--prompts \($0)" }
        if !prompts.promptVersions.isEmpty { values["MESSAGEAI_PROMPT_VERSIONS"] = prompts.promptVersions.joined(separator: ",") }
        values["MESSAGEAI_TIMEZONE"] = timeZone
        values["OPENAI_TIMEOUT_SECONDS"] = llm.llmTimeout.map { "\($0)" }
        values["OPENAI_MAX_CONCURRENCY"] = llm.llmConcurrency.map { "\($0)" }
        values["OPENAI_RETRY_BUDGET_SECONDS"] = llm.llmRetryBudget.map { "\($0)" }
        if combined { values["MESSAGEAI_REQUEST_MODE"] = "combined" }
        if perFeature { values["MESSAGEAI_REQUEST_MODE"] = "per-feature" }
        if output.verbose { values["LOG_LEVEL"] = "debug" }
        return values
    }

    func run() throws {
        let settings = EffectiveSetting.all(environment: ProcessEnvironment.values, flags: flagValues)
        if output.json { try Console.printJSON(settings) } else { Console.print(EffectiveSetting.text(settings)) }
        let problems = settings.compactMap(\.problem)
        guard !problems.isEmpty else { return }
        for problem in problems { Console.error("Error: \(problem)") }
        throw ExitCode(ExitStatus.badSetting)
    }
}
