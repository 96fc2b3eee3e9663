import Foundation

/// How often and how long to wait before trying again: the package's one retry policy. Each caller configures its own
/// (the model client's `modelCalls`, the worker's request retries, the run record's write, the scan's claim), and
/// every bound is here: attempts, the longest wait, the whole call's time budget.
package struct RetryPolicy: Sendable, Hashable {
    package enum Jitter: Sendable, Hashable {
        /// The wait is exactly the exponential delay (a delay stored in the database, a reconnect).
        case none
        /// The wait is uniformly random up to the exponential delay, so clients that failed together do not retry
        /// together (model calls).
        case full
    }

    /// Attempts in total, including the first.
    package var maxAttempts: Int
    /// The delay after the first failed attempt.
    package var baseDelay: Duration
    /// Each delay is this many times the one before, until `maxDelay`.
    package var multiplier: Double
    package var maxDelay: Duration
    package var jitter: Jitter
    /// Wall-clock budget for all attempts and waits of one call; no retry starts that would wait beyond it. nil: the
    /// attempts alone bound the call.
    package var totalBudget: Duration?
    /// A wait the other side asks for (an HTTP server's `retry-after`) longer than this is not waited for.
    package var maxRetryAfter: Duration

    package init(maxAttempts: Int, baseDelay: Duration, multiplier: Double = 2, maxDelay: Duration, jitter: Jitter = .none,
                 totalBudget: Duration? = nil, maxRetryAfter: Duration = .seconds(60)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.multiplier = max(1, multiplier)
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.totalBudget = totalBudget
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt, no retries.
    package static let noRetries = RetryPolicy(maxAttempts: 1, baseDelay: .zero, maxDelay: .zero)

    /// The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed:
    /// `min(maxDelay, baseDelay · multiplier^(attempt-1))`, times `random` (clamped to 0...1) under full jitter;
    /// whole milliseconds.
    package func delay(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 60))
        let ceiling = min(maxDelay.seconds, baseDelay.seconds * pow(multiplier, exponent))
        let share = jitter == .full ? min(max(random, 0), 1) : 1
        return .milliseconds(ofSeconds: ceiling * share, rounding: .toNearestOrAwayFromZero)
    }

    /// Whether attempt `attempt` may be followed by another after waiting `wait`, `elapsed` into the call.
    package func allowsRetry(afterAttempt attempt: Int, elapsed: Duration, wait: Duration) -> Bool {
        guard attempt < maxAttempts else { return false }
        guard let totalBudget else { return true }
        return elapsed + wait < totalBudget
    }

    /// Runs `body` (given its 1-based attempt number) until it succeeds, or throws its last error once `retryable`
    /// refuses that error or the policy allows no further attempt. `sleep` waits between attempts (a caller that
    /// must finish even when cancelled, such as closing a run record, passes one that does not throw).
    package func run<T: Sendable>(
        retryingWhen retryable: (any Error) -> Bool,
        sleep: (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        _ body: (Int) async throws -> T
    ) async throws -> T {
        try await run(waitAfter: { error, attempt in retryable(error) ? delay(afterAttempt: attempt) : nil }, sleep: sleep, body)
    }

    /// The package's one retry loop. Runs `body` (given its 1-based attempt number) until it succeeds; after a
    /// failure, `waitAfter` gives the wait before the next attempt (nil: stop), which this policy may still refuse
    /// (attempts, total budget). Throws the last error as `body` threw it.
    package func run<T: Sendable>(
        waitAfter: (any Error, _ attempt: Int) -> Duration?,
        sleep: (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        _ body: (Int) async throws -> T
    ) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        var attempt = 1
        while true {
            do {
                return try await body(attempt)
            } catch {
                guard let wait = waitAfter(error, attempt), allowsRetry(afterAttempt: attempt, elapsed: clock.now - start, wait: wait)
                else { throw error }
                try await sleep(wait)
                attempt += 1
            }
        }
    }
}
