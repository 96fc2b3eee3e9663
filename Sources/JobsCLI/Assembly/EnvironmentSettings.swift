import AgentRuntime
import Core
import Extractors
import Foundation
import Logging
import Postgres
import PromptKit
import Tools
import JobsKit

/// Every environment variable the binary reads, in one table: its name, the values it takes, its default and the
/// flag that overrides it. `stopOnProblems` checks them all before any command does anything (before a `job_runs`
/// row), so a typo (`OPENAI_STRUCTURED_OUTPUT=json-object`) stops the command naming the variable and its valid
/// values instead of running with a default. A variable is checked by the parser of the module that reads it, so the
/// table and the module cannot disagree. An empty variable counts as unset. `messageai-jobs settings` prints the table.
package enum EnvironmentSettings {
    package struct Setting: Sendable {
        package let name: String
        /// What it takes, for the table.
        package let allowed: String
        let defaultValue: String
        /// The flag that overrides it, if any.
        package let flag: String?
        /// A value that may hold a secret (a password, a key): never echoed, masked in `settings`.
        package var secret = false
        /// Why the reading module's parser refuses `value`, nil when it is valid. Only whether it is nil counts: every
        /// problem is reported in one wording (`problem(with:)`), built from `allowed`.
        let check: @Sendable (_ name: String, _ value: String) -> String?

        init(name: String, allowed: String, defaultValue: String, flag: String?, secret: Bool = false,
             check: @escaping @Sendable (_ name: String, _ value: String) -> String?) {
            self.name = name
            self.allowed = allowed
            self.defaultValue = defaultValue
            self.flag = flag
            self.secret = secret
            self.check = check
        }

        /// The one wording of a bad setting: `NAME='value' is not valid: expected WHAT` (the value left out when it
        /// may hold a secret); nil when `value` is valid.
        package func problem(with value: String) -> String? {
            guard check(name, value) != nil else { return nil }
            return SettingText.notValid(name, value: secret ? nil : value, expected: allowed)
        }
    }

    static let flagWords = "true or false (1/0, yes/no)"

    package static let all: [Setting] = [
        Setting(name: "DATABASE_URL", allowed: "a Postgres URI (postgresql://user@host:5432/db) or a libpq connection string (host=... dbname=...)",
                defaultValue: "libpq's PG* variables", flag: "--database-url", secret: true) { name, value in
            // Not echoed: it may carry the password.
            PostgresConfiguration(connectionString: value).isParsable
                ? nil : "\(name) is not valid: expected a Postgres URI (postgresql://user@host:5432/db) or a libpq connection string (host=... dbname=...)"
        },
        Setting(name: "DATABASE_LOCK_TIMEOUT", allowed: "a number of seconds, 0 (the server's setting) to \(Int(PostgresConfiguration.maxTimeoutSeconds))",
                defaultValue: "30", flag: nil, check: Self.database),
        Setting(name: "DATABASE_STATEMENT_TIMEOUT", allowed: "a number of seconds, 0 (the server's setting) to \(Int(PostgresConfiguration.maxTimeoutSeconds))",
                defaultValue: "300", flag: nil, check: Self.database),
        Setting(name: "PGPASSWORD", allowed: "the database password (libpq reads it and the other PG* variables)", defaultValue: "none",
                flag: nil, secret: true, check: Self.anything),
        Setting(name: "OPENAI_API_KEY", allowed: "an API key (visible characters: no spaces or line breaks inside)", defaultValue: "none",
                flag: nil, secret: true, check: Self.llm),
        // Secret: a mistyped URL may be a key pasted into the wrong variable.
        Setting(name: LLMConfiguration.baseURLSetting, allowed: "an http(s) URL, e.g. http://127.0.0.1:8080/v1",
                defaultValue: LLMConfiguration.openAIBaseURL.absoluteString, flag: nil, secret: true, check: Self.llm),
        Setting(name: "OPENAI_MODEL", allowed: "a model name", defaultValue: "each prompt's model", flag: "--model", check: Self.anything),
        Setting(name: LLMConfiguration.structuredOutputSetting, allowed: StructuredOutputMode.allCases.map(\.rawValue).joined(separator: " or "),
                defaultValue: StructuredOutputMode.jsonSchema.rawValue, flag: "prompts render --structured-output", check: Self.llm),
        Setting(name: LLMConfiguration.maxTokensFieldSetting, allowed: MaxTokensField.allCases.map(\.rawValue).joined(separator: " or "),
                defaultValue: MaxTokensField.maxCompletionTokens.rawValue, flag: nil, check: Self.llm),
        Setting(name: LLMConfiguration.timeoutSetting, allowed: "a number of seconds, 1 to 3600", defaultValue: "60 for OpenAI, 120 for other servers",
                flag: "--llm-timeout", check: Self.llm),
        Setting(name: LLMConfiguration.concurrencySetting, allowed: "a whole number, 1 to 1024",
                defaultValue: "\(LLMConfiguration.openAIDefaultConcurrency) for OpenAI, 1 for other servers", flag: "--llm-concurrency", check: Self.llm),
        Setting(name: LLMConfiguration.retryBudgetSetting, allowed: "a number of seconds, 1 to 86400", defaultValue: "180", flag: "--llm-retry-budget", check: Self.llm),
        Setting(name: LLMConfiguration.toolsWithSchemaSetting, allowed: flagWords, defaultValue: "true for OpenAI, false for other servers",
                flag: nil, check: Self.llm),
        Setting(name: LLMConfiguration.schemaBoundsSetting, allowed: flagWords, defaultValue: "false for OpenAI, true for other servers",
                flag: nil, check: Self.llm),
        Setting(name: LLMConfiguration.namedToolChoiceSetting, allowed: flagWords, defaultValue: "true for OpenAI, false for other servers",
                flag: nil, check: Self.llm),
        Setting(name: TokenPrice.inputSetting, allowed: "US dollars per million input tokens, 0 to 10000 (with \(TokenPrice.outputSetting))",
                defaultValue: "OpenAI's list prices (prompts/pricing/openai.yaml) for api.openai.com; unknown for other servers",
                flag: nil, check: Self.price),
        Setting(name: TokenPrice.cachedInputSetting, allowed: "US dollars per million cached input tokens, 0 to 10000",
                defaultValue: "\(TokenPrice.inputSetting)", flag: nil, check: Self.price),
        Setting(name: TokenPrice.outputSetting, allowed: "US dollars per million output tokens, 0 to 10000 (with \(TokenPrice.inputSetting))",
                defaultValue: "OpenAI's list prices for api.openai.com; unknown for other servers", flag: nil, check: Self.price),
        Setting(name: TokenPrice.batchDiscountSetting, allowed: "the fraction taken off Batch API requests, 0 to 1 (0.5: half price)",
                defaultValue: "0", flag: nil, check: Self.price),
        Setting(name: "OPENAI_RPM", allowed: "requests per minute, a positive integer", defaultValue: "no limit", flag: "--rpm", check: Self.rate),
        Setting(name: "OPENAI_TPM", allowed: "tokens per minute, a positive integer", defaultValue: "no limit", flag: "--tpm", check: Self.rate),
        Setting(name: "LOG_LEVEL", allowed: Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + " (any case)",
                defaultValue: LogSettings.defaultLevel.rawValue, flag: "-v (debug)", check: Self.log),
        Setting(name: "LOG_FORMAT", allowed: LogSettings.Format.allCases.map(\.rawValue).joined(separator: " or ") + " (any case)",
                defaultValue: "text", flag: nil, check: Self.log),
        Setting(name: "MESSAGEAI_HOME", allowed: "a folder holding prompts/ and schemas/", defaultValue: "the prompts embedded in the binary",
                flag: "--prompts") { name, value in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) && isFolder.boolValue
                ? nil : "\(name)='\(value.prefix(200))' is not valid: expected a folder holding prompts/ and schemas/ (it does not exist or is not a folder)"
        },
        Setting(name: PromptPins.environmentVariable, allowed: "id=N,id=N (e.g. calendar_events=2)", defaultValue: "prompts/active.yaml's pins",
                flag: "--prompt-version") { name, value in
            do {
                _ = try PromptPins.overrides(options: [], environment: [name: value])
                return nil
            } catch {
                return "\(name)='\(value.prefix(60))' is not valid: expected id=N,id=N (e.g. calendar_events=2): \(error)"
            }
        },
        Setting(name: UserTimeZonePolicy.environmentVariable, allowed: "an IANA time zone name, e.g. America/New_York", defaultValue: "UTC",
                flag: "--timezone") { name, value in
            problem { _ = try UserTimeZonePolicy.deployment(option: nil, environment: [name: value]) }
        },
        Setting(name: JobRunRecorder.leaseSetting, allowed: "whole seconds, \(JobRunRecorder.leaseRange.lowerBound) to \(JobRunRecorder.leaseRange.upperBound)",
                defaultValue: "\(Int(JobRunRecorder.defaultLease.seconds))", flag: nil) { _, value in
            problem { _ = try JobRunRecorder.lease(fromSetting: value) }
        },
        Setting(name: DeadlineDaysSetting.name, allowed: DeadlineDaysSetting.allowed,
                defaultValue: "\(ProactiveOptions.defaultDeadlineDays)", flag: nil) { name, value in
            problem { _ = try DeadlineDaysSetting.days([name: value]) }
        },
        Setting(name: RequestMode.setting, allowed: RequestMode.allCases.map(\.rawValue).joined(separator: " or "),
                defaultValue: RequestMode.productDefault.rawValue, flag: "--combined / --per-feature") { name, value in
            problem { _ = try RequestMode.resolve(environment: [name: value]) }
        },
        Setting(name: "JOB_COMPLETION_INDEX", allowed: "a whole number, 0 or more (the shard index --shard auto/N reads)", defaultValue: "none",
                flag: "--shard i/N") { name, value in
            Int(value).map { $0 >= 0 } == true ? nil : "\(name)='\(value.prefix(60))' is not valid: expected a whole number, 0 or more"
        },
    ]

    @Sendable static func anything(_ name: String, _ value: String) -> String? { nil }

    @Sendable static func database(_ name: String, _ value: String) -> String? {
        problem { _ = try PostgresConfiguration.fromEnvironment([name: value]) }
    }

    @Sendable static func llm(_ name: String, _ value: String) -> String? {
        problem { try LLMConfiguration.check(name, value) }
    }

    /// One price variable on its own: a number in range (that input and output go together is `Settings`' check).
    @Sendable static func price(_ name: String, _ value: String) -> String? {
        var environment = [name: value]
        for other in [TokenPrice.inputSetting, TokenPrice.outputSetting] where other != name { environment[other] = "0" }
        return problem { _ = try TokenPrice.fromEnvironment(environment) }
    }

    @Sendable static func rate(_ name: String, _ value: String) -> String? {
        problem { _ = try RateLimits.fromEnvironment([name: value]) }
    }

    @Sendable static func log(_ name: String, _ value: String) -> String? {
        problem { _ = try LogSettings.from([name: value]) }
    }

    /// nil when `parse` (the reading module's own parser) accepts the value, else what its error says.
    static func problem(_ parse: () throws -> Void) -> String? {
        do {
            try parse()
            return nil
        } catch {
            return text(of: error)
        }
    }

    /// An error as a settings problem: a `PostgresError`'s message without its code, any other error's description.
    static func text(of error: any Error) -> String {
        (error as? PostgresError)?.message ?? "\(error)"
    }

    /// Every problem with the environment's settings (those named in `names`, or all), in table order; empty when
    /// all are valid or unset.
    package static func problems(_ environment: [String: String], of names: Set<String>? = nil) -> [String] {
        all.compactMap { setting in
            guard names?.contains(setting.name) ?? true, let raw = environment[setting.name], !raw.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
            return setting.problem(with: raw)
        }
    }

    /// The table as text, for `messageai-jobs settings`.
    package static var table: String {
        all.map { setting in
            "\(setting.name)\n    values: \(setting.allowed)\n    default: \(setting.defaultValue)"
                + (setting.flag.map { "\n    overridden by: \($0)" } ?? "")
        }.joined(separator: "\n")
    }
}

extension EnvironmentSettings {
    /// Prints every bad setting and exits `ExitStatus.badSetting`; returns when all are valid.
    package static func stopOnProblems(_ environment: [String: String]) {
        let found = problems(environment)
        guard !found.isEmpty else { return }
        for problem in found { Console.error("Error: \(problem)") }
        Console.error("Every variable the binary reads, its values and default: messageai-jobs settings")
        Foundation.exit(ExitStatus.badSetting)
    }
}
