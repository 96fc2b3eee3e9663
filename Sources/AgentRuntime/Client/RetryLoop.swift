import Core
import Foundation
import Logging

/// What one attempt produced, as the retry loop sees it.
enum AttemptOutcome<Value: Sendable>: Sendable {
    case success(Value)
    /// A failure; `retryAfter` is the server's hint, when it gave one.
    case failure(LLMError, retryAfter: Duration?)
}

/// How every model client retries: `RetryPolicy`'s one loop with the model server's rules on top (the server's
/// retry-after, the longer wait after a timeout, per-class retry limits, no retry after a cancellation), and the last
/// failure reported as `LLMError.retriesExhausted` once more than one attempt was made.
struct RetryLoop: Sendable {
    let policy: RetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger

    /// A failed attempt, carried through the policy's loop.
    private struct Failed: Error {
        let error: LLMError
        let retryAfter: Duration?
        let attempt: Int
    }

    /// Runs `attempt` (given its 1-based number) until it succeeds or the policy says stop. `isRetryable` decides
    /// which failures may be tried again; by default the error's own `isRetryable`.
    func run<Value: Sendable>(
        _ label: String,
        isRetryable: (LLMError) -> Bool = { $0.isRetryable },
        attempt: (Int) async throws -> AttemptOutcome<Value>
    ) async throws -> Value {
        var retriesByClass: [String: Int] = [:]
        let sleep = self.sleep
        do {
            return try await policy.run(waitAfter: { error, number in
                guard let failed = error as? Failed else { return nil }
                let failure = failed.error
                if case .cancelled = failure { return nil }
                guard isRetryable(failure) else { return nil }
                let retries = retriesByClass[failure.retryClass, default: 0]
                if let limit = failure.retryLimit, retries >= limit { return nil }
                let wait: Duration
                if let retryAfter = failed.retryAfter {
                    guard retryAfter <= policy.maxRetryAfter else { return nil }
                    wait = retryAfter
                } else if case .timeout(let limit) = failure {
                    wait = policy.delay(afterTimeout: limit, attempt: number)
                } else {
                    wait = policy.delay(afterAttempt: number)
                }
                retriesByClass[failure.retryClass] = retries + 1
                logger.debug("retry scheduled", metadata: ["call": "\(label)", "attempt": "\(number)", "wait_ms": "\(wait.wholeMilliseconds)"])
                return wait
            }, sleep: { wait in
                do { try await sleep(wait) } catch { throw LLMError.cancelled }
            }) { number in
                if Task.isCancelled { throw LLMError.cancelled }
                switch try await attempt(number) {
                case .success(let value): return value
                case .failure(let error, let hint): throw Failed(error: error, retryAfter: hint, attempt: number)
                }
            }
        } catch let failed as Failed {
            let failure = failed.error
            if case .cancelled = failure { throw failure }
            guard failed.attempt > 1 else { throw failure }
            // A refused attempt (the breaker is open) was never sent: it is not counted.
            let sent = if case .serverUnavailable = failure { failed.attempt - 1 } else { failed.attempt }
            throw LLMError.retriesExhausted(attempts: sent, last: failure)
        }
    }
}
