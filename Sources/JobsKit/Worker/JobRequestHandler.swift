import AgentRuntime
package import Extractors
package import Foundation

/// Serves one claimed request with the services the CLI commands use, so a request does exactly what
/// `messageai-jobs extract` or `assist` would. Returns the `job_runs` id that recorded the work.
package struct JobRequestHandler: Sendable {
    package let extract: ExtractService
    package let features: [ExtractionFeature]
    /// Nil when the worker has no LLM: assist requests then fail at once with a message saying so.
    package let assist: AssistService?

    /// `features` nil: every feature of the extract service's engine.
    package init(extract: ExtractService, features: [ExtractionFeature]? = nil, assist: AssistService?) {
        self.extract = extract
        self.features = features ?? extract.engine.registry.ids
        self.assist = assist
    }

    package func handle(_ request: JobRequest, now: Date = Date()) async throws -> UUID {
        switch request.kind {
        case .extract:
            guard let conversationID = request.conversationID else {
                throw JobsError.invalidInput("\(request.label) has no conversation_id")
            }
            return try await extract.run(conversationID: conversationID, features: features, dryRun: false, now: now).runID
        case .assist:
            guard let userID = request.userID else { throw JobsError.invalidInput("\(request.label) has no user_id") }
            guard let assist else { throw JobsError.llmNotConfigured(requestID: request.id) }
            let summary = try await assist.run(userID: userID, now: now)
            guard summary.findings != nil else {
                // The model server is down: not this request's fault (the worker gives it back, attempt not counted).
                if let outage = assist.client.circuitBreaker?.outage { throw LLMError.serverUnavailable(outage) }
                throw JobsError.noAnswer(stopReason: summary.stopReason, runID: summary.runID)
            }
            return summary.runID
        }
    }
}
