import Foundation

/// What one worker run did; printed as JSON by `messageai-jobs worker --json`.
public struct WorkerSummary: Sendable, Codable {
    /// One attempt at one request.
    public struct Attempt: Sendable, Codable {
        public enum Result: String, Sendable, Codable {
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

        public let requestID: Int64
        public let kind: JobRequest.Kind
        public let attempt: Int
        public let result: Result
        public let runID: UUID?
        public let error: String?
        public let seconds: Double
    }

    public enum StopReason: String, Sendable, Codable {
        /// `--once`: nothing more was ready.
        case drained
        /// A stop was requested (SIGTERM / SIGINT).
        case stopped
    }

    public var owner: String
    public var stopReason: StopReason = .drained
    public var claimed = 0
    public var done = 0
    public var retriesScheduled = 0
    public var failed = 0
    /// Attempts given back because the model server was unavailable (`Attempt.Result.deferred`).
    public var deferred = 0
    /// Requests given back to the queue at shutdown because they did not finish within the grace period.
    public var released: [Int64] = []
    /// Wake-ups by NOTIFY (including other databases' or schemas' notifications on the same channel).
    public var notifications = 0
    /// The first attempts, in the order they ended (at most `maxAttemptsListed`).
    public var attempts: [Attempt] = []
    public var seconds = 0.0

    public static let maxAttemptsListed = 200

    public init(owner: String) { self.owner = owner }
}
