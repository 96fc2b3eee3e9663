package import Core

/// Why no answer provider or prompt set could be set up for a run, with a `code` callers branch on and a message
/// that says what to change. One struct for the module, in the style of AsyncHTTPClient's `HTTPClientError`.
package struct ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    package typealias Code = ErrorCode<ProviderError>

    package let code: Code
    /// The whole user-visible text: what is wrong and how to fix it.
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// No LLM configured where one is required; says how to configure one or how to run without.
    package static let notConfigured = noLLM(otherwise: "or pass --provider rules to run without an LLM")

    /// No LLM configured, for a command that has no `--provider rules`: `otherwise` says what it can do instead.
    package static func noLLM(otherwise: String) -> ProviderError {
        ProviderError(
            .notConfigured,
            """
            no LLM is configured. Set OPENAI_API_KEY to use OpenAI, or OPENAI_BASE_URL to use an OpenAI-compatible server \
            (llama.cpp, vLLM, Ollama: e.g. OPENAI_BASE_URL=http://127.0.0.1:8080/v1, and OPENAI_STRUCTURED_OUTPUT=json_object \
            for servers without json_schema support), \(otherwise)
            """)
    }
}

extension ProviderError {
    /// A configuration error (exit 64, like a bad flag): the deployment's settings, not the run, are wrong.
    package var isConfiguration: Bool { [.notConfigured, .invalidSetting, .promptsNotFound].contains(code) }
}

extension ErrorCode where Domain == ProviderError {
    /// The run asked for an LLM and neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL` is set.
    package static var notConfigured: Self { Self("notConfigured") }
    /// An `OPENAI_*` setting is malformed.
    package static var invalidSetting: Self { Self("invalidSetting") }
    /// `--prompts` or `$MESSAGEAI_HOME/prompts` names no directory.
    package static var promptsNotFound: Self { Self("promptsNotFound") }
    /// The prompt directory exists but its files or pins do not load.
    package static var promptsDoNotLoad: Self { Self("promptsDoNotLoad") }
}
