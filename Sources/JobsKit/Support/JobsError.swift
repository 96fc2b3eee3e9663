import AgentRuntime
import ErrorCode
import Foundation

/// A job that cannot do what it was asked, with a `code` callers branch on and a message that says what and where.
///
/// Shaped like AsyncHTTPClient's `HTTPClientError` and postgres-nio's `PSQLError`: one struct per module, so a new
/// failure is a new code rather than a new type, the message is for people, the code for programs, and context
/// (`runID`) for the caller that needs it. Problems in a model's answer stay `ExtractionError`s.
public struct JobsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    public typealias Code = ErrorCode<JobsError>

    public let code: Code
    /// The whole user-visible text: what failed and where.
    public let message: String
    /// The `job_runs` row the failed attempt recorded, when there is one.
    public let runID: UUID?

    public init(_ code: Code, _ message: String, runID: UUID? = nil) {
        self.code = code
        self.message = message
        self.runID = runID
    }

    public var description: String { message }

    public static func invalidInput(_ message: String) -> JobsError { JobsError(.invalidInput, message) }
    public static func notFound(_ message: String) -> JobsError { JobsError(.notFound, message) }
    public static func conflict(_ message: String) -> JobsError { JobsError(.conflict, message) }
    public static func invalidRecord(_ message: String) -> JobsError { JobsError(.invalidRecord, message) }
    public static func promptProblem(_ message: String) -> JobsError { JobsError(.promptProblem, message) }

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
    public static var invalidInput: Self { Self("invalidInput") }
    /// An id names no row (a conversation, a user, a batch, a job request).
    public static var notFound: Self { Self("notFound") }
    /// The row exists but its state forbids the action (retrying a running request).
    public static var conflict: Self { Self("conflict") }
    /// A row this service stored earlier no longer decodes (an `llm_batches` row naming an unknown feature).
    public static var invalidRecord: Self { Self("invalidRecord") }
    /// The deployment's prompts cannot serve the job; every conversation would fail the same way.
    public static var promptProblem: Self { Self("promptProblem") }
    /// The job needs an LLM and none is configured; retrying on the same worker cannot help.
    public static var llmNotConfigured: Self { Self("llmNotConfigured") }
    /// The model ran but gave no usable answer; `runID` names the run that spent the tokens.
    public static var noAnswer: Self { Self("noAnswer") }
}
