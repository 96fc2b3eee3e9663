import Foundation

/// How the on-demand worker serves `job_requests`.
public struct WorkerOptions: Sendable {
    /// Requests processed at once.
    public var concurrency = 2
    /// Time between polls when no notification arrives: the safety net for a lost NOTIFY.
    public var poll: Duration = .seconds(5)
    /// On stop, how long in-flight requests may take to finish before they are cancelled and released.
    public var grace: Duration = .seconds(30)
    /// How long a claim lasts without renewal; a crashed worker's requests are taken over after this. A live
    /// worker renews its claims every third of it, so a long request is never taken over by mistake.
    public var lease: Duration = .seconds(600)
    /// Attempts before a request is marked failed.
    public var maxAttempts = 3
    /// Delay before retry n is `backoff.delay(afterAttempt: n)`.
    public var backoff = RetryBackoff()
    /// Process what is ready, then return (for cron and tests) instead of serving until stopped.
    public var once = false
    /// The channel the `004_job_request_notify.sql` trigger notifies.
    public var channel = "job_requests"
    /// Identifies this worker in `lease_owner`; unique per worker, so two workers in one process differ too.
    public var owner = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):"
        + UUID().uuidString.prefix(8).lowercased()

    public init() {}
}

/// Exponential retry delays with a ceiling: a failing request is retried soon, then less and less often.
public struct RetryBackoff: Sendable, Hashable, Codable {
    /// Delay after the first failed attempt.
    public var base: Duration
    /// No delay is longer than this.
    public var max: Duration

    public init(base: Duration = .seconds(30), max: Duration = .seconds(900)) {
        self.base = base
        self.max = max
    }

    /// `base * 2^(attempt-1)`, at most `max`.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(Swift.min(Swift.max(attempt, 1) - 1, 30))
        return .seconds(Swift.min(max.seconds, base.seconds * pow(2, exponent)))
    }
}
