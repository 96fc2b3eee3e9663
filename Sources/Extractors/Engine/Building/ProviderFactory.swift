import Core
package import AgentRuntime
package import Foundation
package import PromptKit

/// Where extractor answers come from.
package enum ProviderChoice: String, Sendable, CaseIterable, Codable {
    /// OpenAI when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, otherwise the rule-based provider.
    case auto
    case openai
    case rules
    /// `eval` only: answers read from files (`eval --provider recorded --answers DIR`), no model is called.
    case recorded
    /// `eval` only: each request answered from the fixture's own labels, as a perfect model would (`LabelAnswers`),
    /// so the pipeline's own losses are measured apart from a model's.
    case labels
}

/// Builds the answer provider a command asked for.
package enum ProviderFactory {
    /// What a provider choice comes to in an environment: an LLM configuration, or the rule-based provider.
    package enum Resolution: Sendable {
        case llm(LLMConfiguration)
        /// `auto` with no LLM configured carries a notice saying so.
        case rules(notice: String?)
    }

    /// Decides between the LLM and the rules for a configuration already read (`Settings.llm`; nil: no LLM
    /// configured); `openai` with nothing configured says how to configure it.
    package static func resolve(_ choice: ProviderChoice, configuration: LLMConfiguration?) throws -> Resolution {
        switch (choice, configuration) {
        case (.rules, _):
            return .rules(notice: nil)
        case (.recorded, _):
            throw ProviderError(.invalidSetting, "--provider recorded answers from files and works with `eval` only; use openai, rules or auto here")
        case (.labels, _):
            throw ProviderError(.invalidSetting, "--provider labels answers from eval fixtures' labels and works with `eval` only; use openai, rules or auto here")
        case (.auto, nil):
            return .rules(notice: "No LLM configured (OPENAI_API_KEY and OPENAI_BASE_URL are unset): using the rule-based provider.")
        case (.openai, nil):
            throw ProviderError.notConfigured
        case (_, let configuration?):
            return .llm(configuration)
        }
    }

    /// The LLM provider for a configuration. `transport` replaces the HTTP layer (the eval's cache); `wrap`
    /// decorates the client (the scan's shared rate limiter).
    package static func llmProvider(
        _ configuration: LLMConfiguration, modelOverride: String? = nil, transport: (any HTTPTransport)? = nil,
        wrap: (OpenAIClient) -> any ChatCompleting = { $0 }
    ) -> LLMAnswerProvider {
        let client = transport.map { OpenAIClient(configuration: configuration, transport: $0) } ?? OpenAIClient(configuration: configuration)
        var provider = LLMAnswerProvider(client: wrap(client), structuredOutput: configuration.structuredOutput,
                                         modelOverride: modelOverride ?? configuration.defaultModel)
        provider.schemaBounds = configuration.schemaBounds
        provider.price = configuration.price
        if !LLMConfiguration.isOpenAI(configuration.baseURL) {
            let url = configuration.baseURL
            provider.unpricedServer = (url.host ?? url.absoluteString) + (url.port.map { ":\($0)" } ?? "")
        }
        return provider
    }

    /// A relative path that does not exist here, found under `$MESSAGEAI_HOME` when it exists there (the fixtures,
    /// from any directory); otherwise the path unchanged, so errors name what was asked for.
    package static func homePath(_ path: String, environment: [String: String]) -> String {
        guard !path.hasPrefix("/"), !FileManager.default.fileExists(atPath: path), let home = environment["MESSAGEAI_HOME"], !home.isEmpty else {
            return path
        }
        let candidate = URL(fileURLWithPath: home).appendingPathComponent(path).path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : path
    }

    /// Why a relative fixtures path (`evals/fixtures`, the default of `eval` and `prompts render`) names nothing from
    /// here, and how to point at the fixtures; nil when it exists (here or under `$MESSAGEAI_HOME`).
    package static func missingFixtures(_ path: String, environment: [String: String]) -> String? {
        let resolved = homePath(path, environment: environment)
        guard !FileManager.default.fileExists(atPath: resolved) else { return nil }
        let home = environment["MESSAGEAI_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let looked = path.hasPrefix("/") ? "" : " in \(FileManager.default.currentDirectoryPath)" + (home.map { " or under MESSAGEAI_HOME=\($0)" } ?? "")
        return "fixtures '\(path)' not found\(looked): pass --fixtures with a fixture file or folder (e.g. --fixtures /path/to/repo/evals/fixtures), "
            + "or set MESSAGEAI_HOME to the repository's root (the folder holding evals/fixtures), or run from that folder"
    }

    /// The one prompt-set lookup: `--prompts DIR` (a relative DIR is also looked for under `$MESSAGEAI_HOME`), else
    /// `$MESSAGEAI_HOME/prompts`, else the set embedded in the binary. A directory is for prompt work; servers run
    /// the embedded set, whatever their working directory holds.
    package static func promptDirectory(_ path: String?, environment: [String: String]) throws -> URL {
        let home = environment["MESSAGEAI_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path else {
            guard let home else { return PromptFiles.embeddedPrompts }
            let directory = URL(fileURLWithPath: home).appendingPathComponent("prompts")
            guard PromptFiles.isDirectory(directory) else {
                throw ProviderError(.promptsNotFound,
                    "prompt directory '\(directory.path)' not found: MESSAGEAI_HOME must be a folder holding prompts/ and schemas/ "
                        + "(unset it to use the prompts embedded in this binary)")
            }
            return directory
        }
        var candidates = [URL(fileURLWithPath: path)]
        if let home, !path.hasPrefix("/") {
            candidates.append(URL(fileURLWithPath: home).appendingPathComponent(path))
        }
        for candidate in candidates where PromptFiles.isDirectory(candidate) { return candidate }
        throw ProviderError(.promptsNotFound,
            "prompt directory '\(path)' not found: pass an existing --prompts DIR, set MESSAGEAI_HOME to a folder holding "
                + "prompts/, or pass neither to use the prompts embedded in this binary")
    }

    /// How a prompt directory is shown to operators: `embedded` or its path.
    package static func describe(promptDirectory directory: URL) -> String {
        PromptFiles.isEmbedded(directory) ? "embedded" : directory.path
    }

    /// Loads the prompt library with its pins (`active.yaml`), moved for this run by `MESSAGEAI_PROMPT_VERSIONS` and
    /// then by `versions` (`--prompt-version id=N` options).
    package static func library(
        promptsPath: String?, versions: [String] = [], environment: [String: String]
    ) throws -> PromptLibrary {
        let directory = try promptDirectory(promptsPath, environment: environment)
        let library: PromptLibrary
        let options: PromptPins
        do {
            library = try PromptLibrary.load(directory: directory)
            options = try PromptPins.parse(picks: versions, source: "--prompt-version")
            let pinned = try library.pinning(try pins(fromEnvironment: environment, notIn: options, library: library))
            do {
                return try pinned.pinning(options)
            } catch {
                throw ProviderError(.invalidSetting, SettingText.notValid(
                    "--prompt-version", value: versions.joined(separator: ","),
                    expected: "ID=VERSION naming an existing prompt version (\(error.problems.map(\.message).joined(separator: "; ")))"))
            }
        } catch let error as ProviderError {
            throw error
        } catch {
            throw ProviderError(.promptsDoNotLoad, "the prompts do not load:\n\(error)")
        }
    }

    /// `MESSAGEAI_PROMPT_VERSIONS`'s pins but those `options` move again; one naming no prompt version is a
    /// configuration error in the settings' one wording, naming the variable.
    static func pins(fromEnvironment environment: [String: String], notIn options: PromptPins, library: PromptLibrary) throws -> PromptPins {
        let name = PromptPins.environmentVariable
        var pins = try PromptPins.overrides(options: [], environment: environment)
        for id in options.versions.keys { pins.versions[id] = nil }
        do {
            _ = try library.pinning(pins, source: name)
        } catch {
            let reasons = error.problems.map(\.message).joined(separator: "; ")
            throw ProviderError(.invalidSetting, SettingText.notValid(
                name, value: environment[name] ?? "", expected: "id=N,id=N naming existing prompt versions (\(reasons))"))
        }
        return pins
    }
}
