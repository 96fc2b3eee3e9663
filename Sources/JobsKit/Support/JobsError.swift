import AgentRuntime
package import Core
package import Foundation

/// A job that cannot do what it was asked, with a `code` callers branch on and a message that says what and where.
///
/// Shaped like AsyncHTTPClient's `HTTPClientError` and postgres-nio's `PSQLError`: the services' one error type, so a
/// new failure is a new code rather than a new type, the message is for people, the code for programs, and context
/// (`runID`) for the caller that needs it. Problems in a model's answer stay `ExtractionError`s; the metrics endpoint
/// that cannot start throws `MetricsEndpointError`, and a scan that lost its lease stops with `ScanLeaseLost`.
package struct JobsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    package typealias Code = ErrorCode<JobsError>

    package let code: Code
    /// The whole user-visible text: what failed and where.
    package let message: String
    /// The `job_runs` row the failed attempt recorded, when there is one.
    package let runID: UUID?

    package init(_ code: Code, _ message: String, runID: UUID? = nil) {
        self.code = code
        self.message = message
        self.runID = runID
    }

    package var description: String { message }

    package static func invalidInput(_ message: String) -> JobsError { JobsError(.invalidInput, message) }
    package static func notFound(_ message: String) -> JobsError { JobsError(.notFound, message) }
    package static func conflict(_ message: String) -> JobsError { JobsError(.conflict, message) }
    package static func invalidRecord(_ message: String) -> JobsError { JobsError(.invalidRecord, message) }
    package static func promptProblem(_ message: String) -> JobsError { JobsError(.promptProblem, message) }

    /// An assist request reached a worker started without an LLM.
    static func llmNotConfigured(requestID: Int64) -> JobsError {
        JobsError(.llmNotConfigured,
                  "assist request \(requestID) needs an LLM, but no LLM is configured for this worker: start it with "
                      + "OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (an OpenAI-compatible server) set, then run "
                      + "`messageai-jobs requests retry \(requestID)`")
    }

    static func noAnswer(stopReason: AgentStopReason, runID: UUID) -> JobsError {
        JobsError(.noAnswer,
                  "the assistant gave no valid answer (stop reason \(stopReason); see job_runs \(runID.uuidString.lowercased()))",
                  runID: runID)
    }

    /// Errors that no retry can fix, so a worker fails the request at once instead of after every attempt.
    var isPermanent: Bool { code == .llmNotConfigured }
}

extension ErrorCode where Domain == JobsError {
    /// A request, option or job row the caller wrote is malformed (a shard `i/N`, a request without its id).
    package static var invalidInput: Self { Self("invalidInput") }
    /// An id names no row (a conversation, a user, a batch, a job request).
    package static var notFound: Self { Self("notFound") }
    /// The row exists but its state forbids the action (retrying a running request).
    package static var conflict: Self { Self("conflict") }
    /// A row this service stored earlier no longer decodes (an `llm_batches` row naming an unknown feature).
    package static var invalidRecord: Self { Self("invalidRecord") }
    /// The deployment's prompts cannot serve the job; every conversation would fail the same way.
    package static var promptProblem: Self { Self("promptProblem") }
    /// The job needs an LLM and none is configured; retrying on the same worker cannot help.
    package static var llmNotConfigured: Self { Self("llmNotConfigured") }
    /// The model ran but gave no usable answer; `runID` names the run that spent the tokens.
    package static var noAnswer: Self { Self("noAnswer") }
}
