import Core
import Foundation
import Logging

/// What one attempt produced, as the retry loop sees it.
enum AttemptOutcome<Value: Sendable>: Sendable {
    case success(Value)
    /// A failure; `retryAfter` is the server's hint, when it gave one.
    case failure(LLMError, retryAfter: Duration?)
}

/// The one retry loop every client uses: it applies `RetryPolicy` (attempts, backoff, the server's retry-after, the
/// total budget) and stops at once on cancellation or on a failure that is not worth retrying.
struct RetryLoop: Sendable {
    let policy: RetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger

    /// Runs `attempt` (given its 1-based number) until it succeeds or the policy says stop. `isRetryable` decides
    /// which failures may be tried again; by default the error's own `isRetryable`.
    func run<Value: Sendable>(
        _ label: String,
        isRetryable: (LLMError) -> Bool = { $0.isRetryable },
        attempt: (Int) async throws -> AttemptOutcome<Value>
    ) async throws -> Value {
        let clock = ContinuousClock()
        let start = clock.now
        var number = 0
        var retriesByClass: [String: Int] = [:]
        while true {
            number += 1
            if Task.isCancelled { throw LLMError.cancelled }
            let failure: LLMError
            let retryAfter: Duration?
            switch try await attempt(number) {
            case .success(let value): return value
            case .failure(let error, let hint):
                failure = error
                retryAfter = hint
            }
            if case .cancelled = failure { throw failure }
            // A refused attempt (the breaker is open) was never sent: it is not counted.
            let sent = if case .serverUnavailable = failure { number - 1 } else { number }
            let exhausted = number == 1 ? failure : LLMError.retriesExhausted(attempts: sent, last: failure)
            guard isRetryable(failure), number < policy.maxAttempts else { throw exhausted }
            let retries = retriesByClass[failure.retryClass, default: 0]
            if let limit = failure.retryLimit, retries >= limit { throw exhausted }
            retriesByClass[failure.retryClass] = retries + 1
            let wait: Duration
            if let retryAfter {
                guard retryAfter <= policy.maxRetryAfter else { throw exhausted }
                wait = retryAfter
            } else if case .timeout(let limit) = failure {
                wait = policy.delay(afterTimeout: limit, attempt: number)
            } else {
                wait = policy.delay(afterAttempt: number)
            }
            guard policy.allowsRetry(afterAttempt: number, elapsed: clock.now - start, wait: wait) else { throw exhausted }
            logger.debug("retry scheduled", metadata: ["call": "\(label)", "attempt": "\(number)", "wait_ms": "\(wait.wholeMilliseconds)"])
            do { try await sleep(wait) } catch { throw LLMError.cancelled }
        }
    }
}
