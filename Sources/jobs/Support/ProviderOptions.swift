import ArgumentParser
import CLISupport
import Extractors
import JobsKit
import Providers

extension ProviderChoice: ExpressibleByArgument {}

/// How extractors get their answers; shared by extract, scan and eval.
struct ProviderOptions: ParsableArguments {
    @Option(help: """
        Where answers come from: openai (OpenAI or any OpenAI-compatible server, from OPENAI_API_KEY / OPENAI_BASE_URL), \
        rules (no LLM), or auto: openai when configured, else rules.
        """)
    var provider: ProviderChoice = .auto

    @Option(help: "Model for every prompt (default: each prompt's model, or $OPENAI_MODEL).")
    var model: String?

    @OptionGroup var promptOptions: PromptOptions
    var prompts: String? { promptOptions.prompts }
    var promptVersions: [String] { promptOptions.promptVersions }

    @Option(help: "Estimated input tokens per window; longer conversations are split into overlapping windows.")
    var windowTokens: Int = 6000

    @OptionGroup var llm: LLMOptions

    func validate() throws {
        // Below ~1,000 tokens a window holds the fixed prompt and hardly a message: hundreds of requests per conversation.
        guard (1_000...1_000_000).contains(windowTokens) else {
            throw ValidationError("--window-tokens must be between 1000 and 1000000, not \(windowTokens)")
        }
    }

    /// The engine, with a notice on stderr when no LLM was configured.
    func engine() throws -> ExtractionEngine {
        let (provider, notice) = try ProviderFactory.make(self.provider, modelOverride: model, environment: llm.environment())
        if let notice { CLILogging.notice(notice) }
        return try ProviderFactory.engine(promptsPath: prompts, provider: provider, windowing: Windowing(maxInputTokens: windowTokens),
                                          versions: promptVersions)
    }
}
