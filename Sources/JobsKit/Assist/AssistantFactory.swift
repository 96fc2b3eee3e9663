package import AgentRuntime
import Foundation
package import Postgres
package import PromptKit

/// Builds the assistant for a provider choice: an `AssistService` when it comes to an LLM, nil for the rule-based
/// provider (the proactive pass then keeps the code's template suggestions).
package enum AssistantFactory {
    package static func make(
        _ choice: ProviderChoice, pool: PostgresPool, promptsPath: String?, promptVersions: [String] = [], modelOverride: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        wrap: (OpenAIClient) -> any ChatCompleting = { $0 }
    ) throws -> AssistService? {
        guard case .llm(let configuration) = try ProviderFactory.resolve(choice, environment: environment) else { return nil }
        let library = try ProviderFactory.library(promptsPath: promptsPath, versions: promptVersions, environment: environment)
        return service(configuration, pool: pool, prompts: library, modelOverride: modelOverride,
                       client: wrap(OpenAIClient(configuration: configuration)))
    }

    /// The assistant for one server's settings, talking through `client`: what `make` builds, and what
    /// `prompts render --prompt assistant` previews with a client that is never called.
    package static func service(
        _ configuration: LLMConfiguration, pool: PostgresPool, prompts: PromptLibrary, modelOverride: String?, client: any ChatCompleting
    ) -> AssistService {
        var service = AssistService(
            pool: pool, client: client, prompts: prompts,
            structuredOutput: configuration.structuredOutput, modelOverride: modelOverride ?? configuration.defaultModel)
        service.configure(for: configuration)
        return service
    }
}
