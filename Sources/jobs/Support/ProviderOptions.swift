import ArgumentParser
import JobsKit
import Extractors
import Foundation

extension ProviderChoice: ExpressibleByArgument {}

/// How extractors get their answers and how many requests they make; shared by extract, scan, the worker and eval.
struct ProviderOptions: ParsableArguments {
    @Option(help: """
        Where answers come from: openai (OpenAI or any OpenAI-compatible server, from OPENAI_API_KEY / OPENAI_BASE_URL), \
        rules (no LLM), auto: openai when configured, else rules; or recorded (eval only: answers from --answers DIR); \
        or labels (eval only: each request answered from the fixture's own labels, as a perfect model would).
        """)
    var provider: ProviderChoice = .auto

    @Option(help: "Model for every prompt (default: each prompt's model, or $OPENAI_MODEL).")
    var model: String?

    @OptionGroup var promptOptions: PromptOptions
    var prompts: String? { promptOptions.prompts }
    var promptVersions: [String] { promptOptions.promptVersions }

    @Option(help: "Estimated input tokens per window; longer conversations are split into overlapping windows.")
    var windowTokens: Int = 6000

    @Flag(help: "One request per conversation window for all the features (prompts/combined.yaml): the default (or $MESSAGEAI_REQUEST_MODE=combined).")
    var combined = false

    @Flag(help: "One request per feature and window instead of one combined request (or $MESSAGEAI_REQUEST_MODE=per-feature): five requests where combined sends one.")
    var perFeature = false

    @OptionGroup var llm: LLMOptions

    /// Combined unless `--per-feature` or `MESSAGEAI_REQUEST_MODE` says otherwise; a bad value stops the command.
    func requestMode() throws -> RequestMode {
        do {
            return try RequestMode.resolve(combined: combined, perFeature: perFeature, environment: ProcessEnvironment.values)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func validate() throws {
        // Below ~1,000 tokens a window holds the fixed prompt and hardly a message: hundreds of requests per conversation.
        guard (1_000...1_000_000).contains(windowTokens) else {
            throw ValidationError("--window-tokens must be between 1000 and 1000000, not \(windowTokens)")
        }
        _ = try requestMode()
    }
}
