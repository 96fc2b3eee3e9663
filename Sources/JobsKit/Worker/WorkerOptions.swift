package import Core
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
    /// Attempts before a request is marked failed, and the delay before retry n (`retry.delay(afterAttempt: n)`):
    /// exponential without jitter (the delay is stored as the request's `not_before`), 30 s doubling up to 15 minutes.
    package var retry = RetryPolicy.workerRequests

    /// Process what is ready, then return (for cron and tests) instead of serving until stopped.
    package var once = false
    /// The channel the `004_job_request_notify.sql` trigger notifies.
    package var channel = "job_requests"
    /// Identifies this worker in `lease_owner`; unique per worker, so two workers in one process differ too.
    package var owner = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):"
        + UUID().uuidString.prefix(8).lowercased()

    package init() {}
}

extension RetryPolicy {
    /// The worker's retries of a failed request: 3 attempts, 30 s, 60 s, ... apart, at most 15 minutes.
    package static let workerRequests = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(30), maxDelay: .seconds(900))
}
