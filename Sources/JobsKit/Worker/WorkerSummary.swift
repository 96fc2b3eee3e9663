package import Foundation

/// What one worker run did; printed as JSON by `messageai-jobs worker --json`.
package struct WorkerSummary: Sendable, Codable {
    /// One attempt at one request.
    package struct Attempt: Sendable, Codable {
        package enum Result: String, Sendable, Codable {
            case done
            /// Failed; back to pending with a backoff delay.
            case retryScheduled = "retry_scheduled"
            /// Failed with no attempts left (or a permanent error).
            case failed
            /// Another worker took the request over meanwhile; this attempt's outcome was not recorded.
            case leaseLost = "lease_lost"
            /// Still running when the grace period ended; given back to the queue.
            case released
            /// The model server was unavailable (its circuit breaker open): given back to the queue with its attempt
            /// not counted; the worker claims nothing until the breaker's next probe is due.
            case deferred
        }

        package let requestID: Int64
        package let kind: JobRequest.Kind
        package let attempt: Int
        package let result: Result
        package let runID: UUID?
        package let error: String?
        package let seconds: Double
    }

    package enum StopReason: String, Sendable, Codable {
        /// `--once`: nothing more was ready.
        case drained
        /// A stop was requested (SIGTERM / SIGINT).
        case stopped
    }

    package var owner: String
    package var stopReason: StopReason = .drained
    package var claimed = 0
    package var done = 0
    package var retriesScheduled = 0
    package var failed = 0
    /// Attempts given back because the model server was unavailable (`Attempt.Result.deferred`).
    package var deferred = 0
    /// Requests given back to the queue at shutdown because they did not finish within the grace period.
    package var released: [Int64] = []
    /// Wake-ups by NOTIFY (including other databases' or schemas' notifications on the same channel).
    package var notifications = 0
    /// The first attempts, in the order they ended (at most `maxAttemptsListed`).
    package var attempts: [Attempt] = []
    package var seconds = 0.0

    static let maxAttemptsListed = 200

    package init(owner: String) { self.owner = owner }
}
