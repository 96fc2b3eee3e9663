package import AgentRuntime
package import Postgres
package import PromptKit

/// Builds the assistant for one server's settings (`Assembly.assistant` decides whether there is one).
package enum AssistantFactory {
    /// The assistant for one server's settings, talking through `client`: what the assembly builds, and what
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
