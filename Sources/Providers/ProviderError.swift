import ErrorCode

/// Why no answer provider or prompt set could be set up for a run, with a `code` callers branch on and a message
/// that says what to change. One struct for the module, in the style of AsyncHTTPClient's `HTTPClientError`.
public struct ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    public typealias Code = ErrorCode<ProviderError>

    public let code: Code
    /// The whole user-visible text: what is wrong and how to fix it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// No LLM configured where one is required; says how to configure one or how to run without.
    public static let notConfigured = noLLM(otherwise: "or pass --provider rules to run without an LLM")

    /// No LLM configured, for a command that has no `--provider rules`: `otherwise` says what it can do instead.
    public static func noLLM(otherwise: String) -> ProviderError {
        ProviderError(
            .notConfigured,
            """
            no LLM is configured. Set OPENAI_API_KEY to use OpenAI, or OPENAI_BASE_URL to use an OpenAI-compatible server \
            (llama.cpp, vLLM, Ollama: e.g. OPENAI_BASE_URL=http://127.0.0.1:8080/v1, and OPENAI_STRUCTURED_OUTPUT=json_object \
            for servers without json_schema support), \(otherwise)
            """)
    }
}

extension ErrorCode where Domain == ProviderError {
    /// The run asked for an LLM and neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL` is set.
    public static var notConfigured: Self { Self("notConfigured") }
    /// An `OPENAI_*` setting is malformed.
    public static var invalidSetting: Self { Self("invalidSetting") }
    /// `--prompts` or `$MESSAGEAI_HOME/prompts` names no directory.
    public static var promptsNotFound: Self { Self("promptsNotFound") }
    /// The prompt directory exists but its files or pins do not load.
    public static var promptsDoNotLoad: Self { Self("promptsDoNotLoad") }
}
