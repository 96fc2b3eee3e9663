import Foundation

/// How the on-demand worker serves `job_requests`.
package struct WorkerOptions: Sendable {
    /// Requests processed at once.
    package var concurrency = 2
    /// Time between polls when no notification arrives: the safety net for a lost NOTIFY.
    package var poll: Duration = .seconds(5)
    /// On stop, how long in-flight requests may take to finish before they are cancelled and released.
    package var grace: Duration = .seconds(30)
    /// How long a claim lasts without renewal; a crashed worker's requests are taken over after this. A live
    /// worker renews its claims every third of it, so a long request is never taken over by mistake.
    package var lease: Duration = .seconds(600)
    /// Attempts before a request is marked failed.
    package var maxAttempts = 3
    /// Delay before retry n is `backoff.delay(afterAttempt: n)`.
    package var backoff = RetryBackoff()
    /// Process what is ready, then return (for cron and tests) instead of serving until stopped.
    package var once = false
    /// The channel the `004_job_request_notify.sql` trigger notifies.
    package var channel = "job_requests"
    /// Identifies this worker in `lease_owner`; unique per worker, so two workers in one process differ too.
    package var owner = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):"
        + UUID().uuidString.prefix(8).lowercased()

    package init() {}
}

/// Exponential retry delays with a ceiling: a failing request is retried soon, then less and less often.
package struct RetryBackoff: Sendable, Hashable, Codable {
    /// Delay after the first failed attempt.
    package var base: Duration
    /// No delay is longer than this.
    package var max: Duration

    package init(base: Duration = .seconds(30), max: Duration = .seconds(900)) {
        self.base = base
        self.max = max
    }

    /// `base * 2^(attempt-1)`, at most `max`.
    package func delay(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(Swift.min(Swift.max(attempt, 1) - 1, 30))
        return .seconds(Swift.min(max.seconds, base.seconds * pow(2, exponent)))
    }
}
