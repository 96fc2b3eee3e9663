import AgentRuntime
import Foundation

/// Why the worker could not serve a request, or could not enqueue one.
public enum WorkerError: Error, Sendable, CustomStringConvertible {
    case unknownConversation(UUID)
    case unknownUser(UUID)
    /// An assist request reached a worker started without an LLM; retrying on the same worker cannot help.
    case noLLMConfigured(requestID: Int64)
    case assistantGaveNoAnswer(stopReason: AgentStopReason, runID: UUID)

    public var description: String {
        switch self {
        case .unknownConversation(let id): "no conversation with id \(id.uuidString.lowercased())"
        case .unknownUser(let id): "no user with id \(id.uuidString.lowercased())"
        case .noLLMConfigured(let id):
            "assist request \(id) needs an LLM, but no LLM is configured for this worker: start it with OPENAI_API_KEY "
                + "(OpenAI) or OPENAI_BASE_URL (an OpenAI-compatible server) set, then run `messageai-jobs requests retry \(id)`"
        case .assistantGaveNoAnswer(let reason, let runID):
            "the assistant gave no valid answer (stop reason \(reason); see job_runs \(runID.uuidString.lowercased()))"
        }
    }

    /// Errors that no retry can fix: the request fails at once instead of after every attempt.
    var isPermanent: Bool {
        switch self {
        case .noLLMConfigured, .unknownConversation, .unknownUser: true
        case .assistantGaveNoAnswer: false
        }
    }
}
