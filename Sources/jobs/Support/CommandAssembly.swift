import ArgumentParser
import Foundation
import JobsKit
import JobsCLI

/// The process environment, read once: every setting a command uses comes from here through `Settings`, and
/// logging (`OutputOptions.bootstrap`) from the same read. `MessageAIJobs.main` checks it all before any command runs.
enum ProcessEnvironment {
    static let values = ProcessInfo.processInfo.environment
}

extension OutputOptions {
    /// Logging as `LOG_LEVEL`, `LOG_FORMAT` and `-v` say, with the environment's secrets kept out of every line.
    func bootstrap() { bootstrap(environment: ProcessEnvironment.values) }
}

extension Assembly {
    /// A command's assembly: the environment and the command's `flags` read once into `Settings`; a bad setting is
    /// a usage error (exit 64) naming the variable or flag.
    static func command(_ configure: (inout Settings.Flags) -> Void = { _ in }) throws -> Assembly {
        var flags = Settings.Flags()
        configure(&flags)
        do {
            return Assembly(settings: try Settings(environment: ProcessEnvironment.values, flags: flags))
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension Settings {
    /// `--shard i/N` or `auto/N` (i from `JOB_COMPLETION_INDEX`), as a usage error when it is wrong.
    static func commandShard(_ text: String) throws -> (index: Int, count: Int) {
        do {
            return try shard(text, environment: ProcessEnvironment.values)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension Settings.Flags {
    mutating func take(_ options: ProviderOptions) {
        provider = options.provider
        model = options.model
        prompts = options.prompts
        promptVersions = options.promptVersions
        windowTokens = options.windowTokens
        combined = options.combined
        perFeature = options.perFeature
        take(options.llm)
    }

    mutating func take(_ options: LLMOptions) {
        llmTimeout = options.llmTimeout
        llmConcurrency = options.llmConcurrency
        llmRetryBudget = options.llmRetryBudget
    }

    mutating func take(_ options: DatabaseOptions) { databaseURL = options.databaseURL }

    mutating func take(_ options: TimeZoneOptions) { timeZone = options.timeZone }
}

extension DatabaseOptions {
    /// The assembly of a command that only reads and writes the database.
    func assembly() throws -> Assembly { try Assembly.command { $0.take(self) } }
}
