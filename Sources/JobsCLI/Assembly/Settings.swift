package import AgentRuntime
package import Core
package import Extractors
import Foundation
package import Postgres
import JobsKit

/// What a command runs with: every environment variable the binary reads (`EnvironmentSettings`), with the command's
/// flags written over the variables they override, read once and checked together before anything starts. Library
/// code takes these values; only the CLI reads the process environment.
package struct Settings: Sendable {
    /// The flags that override a variable (nil: the variable decides), and the provider choices beside them.
    package struct Flags: Sendable {
        package var databaseURL: String?
        package var provider: ProviderChoice = .auto
        package var model: String?
        package var prompts: String?
        package var promptVersions: [String] = []
        package var windowTokens = 6000
        package var combined = false
        package var perFeature = false
        package var llmTimeout: Double?
        package var llmConcurrency: Int?
        package var llmRetryBudget: Double?
        package var rpm: Int?
        package var tpm: Int?
        package var timeZone: String?

        package init() {}
    }

    /// The environment as read (the flags are typed values in `flags`, applied where they override a variable).
    package let environment: [String: String]
    package let flags: Flags
    /// The features every service runs, stores and reports: the ones that ship, unless a test registers another.
    package var registry: FeatureRegistry
    package let database: PostgresConfiguration
    /// The model server, with `--llm-timeout`, `--llm-concurrency` and `--llm-retry-budget` over their variables; nil
    /// when neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL` is set.
    package let llm: LLMConfiguration?
    /// `OPENAI_RPM` / `OPENAI_TPM`, overridden by `--rpm` / `--tpm`: the same for every command that calls a model.
    package let rateLimits: RateLimits
    package let requestMode: RequestMode
    package let zones: UserTimeZonePolicy
    /// `MESSAGEAI_RUN_LEASE_SECONDS` (default 300 s): how long a run's `job_runs` row counts as alive without a
    /// heartbeat, for every service that records runs.
    package let runLease: Duration
    /// `MESSAGEAI_DEADLINE_DAYS` (default 7): how many days ahead a deadline not done is a finding.
    package let deadlineDays: Int

    /// Reads `environment` and `flags`. Throws every problem at once, each naming its variable (or flag); a value
    /// that may hold a secret (the database URL, the key) is never echoed.
    package init(environment: [String: String], flags: Flags = Flags(), registry: FeatureRegistry = .shipping) throws(SettingsError) {
        let found = EnvironmentSettings.problems(environment)
        guard found.isEmpty else { throw SettingsError(found) }
        self.environment = environment
        self.flags = flags
        self.registry = registry

        var problems: [String] = []
        func read<T>(_ make: () throws -> T) -> T? {
            do {
                return try make()
            } catch {
                problems.append(EnvironmentSettings.text(of: error))
                return nil
            }
        }
        var database = read { try PostgresConfiguration.fromEnvironment(environment) }
        if let url = flags.databaseURL { database?.connectionString = url }
        let llm = read {
            try LLMConfiguration.fromEnvironment(environment)?.overriding(
                timeoutSeconds: flags.llmTimeout, concurrency: flags.llmConcurrency, retryBudgetSeconds: flags.llmRetryBudget)
        }
        let rateLimits = read { try RateLimits.fromEnvironment(environment).overriding(requestsPerMinute: flags.rpm, tokensPerMinute: flags.tpm) }
        let requestMode = read { try RequestMode.resolve(combined: flags.combined, perFeature: flags.perFeature, environment: environment) }
        let zones = read { try UserTimeZonePolicy.deployment(option: flags.timeZone, environment: environment) }
        let runLease = read {
            let raw = environment[JobRunRecorder.leaseSetting]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return raw.isEmpty ? JobRunRecorder.defaultLease : try JobRunRecorder.lease(fromSetting: raw)
        }
        let deadlineDays = read { try DeadlineDaysSetting.days(environment) }
        guard let database, let llm, let rateLimits, let requestMode, let zones, let runLease, let deadlineDays, problems.isEmpty else {
            throw SettingsError(problems)
        }
        self.database = database
        self.llm = llm
        self.rateLimits = rateLimits
        self.requestMode = requestMode
        self.zones = zones
        self.runLease = runLease
        self.deadlineDays = deadlineDays
    }

    /// `--shard i/N`, or `auto/N` with i from `JOB_COMPLETION_INDEX` (an Indexed Job's pod index).
    package func shard(_ text: String) throws(SettingsError) -> (index: Int, count: Int) {
        try Self.shard(text, environment: environment)
    }

    /// The one shard parser, for a command's `validate()` before its settings are read.
    package static func shard(_ text: String, environment: [String: String]) throws(SettingsError) -> (index: Int, count: Int) {
        var spec = text
        if text.hasPrefix("auto/") {
            guard let index = environment["JOB_COMPLETION_INDEX"], !index.isEmpty else {
                throw SettingsError(["--shard auto/N needs JOB_COMPLETION_INDEX in the environment"])
            }
            // The index comes from the environment: a bad one is named as the variable, not as the flag.
            if let count = Int(text.dropFirst(5)), count > 0, Int(index).map({ !(0..<count).contains($0) }) ?? true {
                throw SettingsError([SettingText.notValid(
                    "JOB_COMPLETION_INDEX", value: index, expected: "a shard index from 0 to \(count - 1) (--shard \(text))")])
            }
            spec = "\(index)/\(text.dropFirst(5))"
        }
        do {
            return try ScanOptions.parseShard(spec)
        } catch {
            throw SettingsError(["\(error)"])
        }
    }
}

/// Every problem found in the settings, one line each, each naming its variable or flag.
package struct SettingsError: Error, Sendable, CustomStringConvertible {
    package let problems: [String]

    package init(_ problems: [String]) { self.problems = problems }

    package var description: String { problems.joined(separator: "\n") }
}
