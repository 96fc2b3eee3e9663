package import Core

/// One process's share of an account's rate limits, used by all its concurrent requests: each request reserves
/// one request and its estimated tokens before it is sent, waits (in the order requests asked) until the
/// reservation is covered, and is reconciled with the real usage afterwards. A response saying nothing is left
/// (`x-ratelimit-remaining-*: 0`) holds every request until the server's reset.
package actor RateLimiter {
    /// A granted reservation, handed back to `finish` with the response.
    package struct Permit: Sendable {
        package let estimatedTokens: Int
        /// How long the request was scheduled to wait before it could be sent.
        package let waited: Duration
    }

    /// What the limiter did, for reports and benchmarks.
    package struct Stats: Sendable, Hashable {
        package var granted = 0
        package var delayed = 0
        package var totalWait: Duration = .zero
        /// Responses that said a limit was exhausted.
        package var exhausted = 0
    }

    package nonisolated let limits: RateLimits
    private let clock: any MonotonicClock
    private var requests: TokenBucket?
    private var tokens: TokenBucket?
    /// No request starts before this (from a response's reset header).
    private var blockedUntil: Duration = .zero
    package private(set) var stats = Stats()

    package init(limits: RateLimits, clock: any MonotonicClock = SystemClock()) {
        self.limits = limits
        self.clock = clock
        let now = clock.elapsed
        requests = limits.requestsPerMinute.map { TokenBucket(perMinute: $0, now: now) }
        tokens = limits.tokensPerMinute.map { TokenBucket(perMinute: $0, now: now) }
    }

    /// Waits until a request of `estimatedTokens` may be sent. Throws `RateLimitError.waitTooLong` when that
    /// would take longer than `limits.maxWait`, and `CancellationError` when the task is cancelled; either way
    /// the reservation is returned.
    package func acquire(estimatedTokens: Int) async throws -> Permit {
        let start = clock.elapsed
        let deadline = start + limits.maxWait
        let cost = Double(max(0, estimatedTokens))
        let requestWait = requests?.take(1, now: start) ?? .zero
        let tokenWait = tokens?.take(cost, now: start) ?? .zero
        var target = max(start + max(requestWait, tokenWait), blockedUntil)
        do {
            guard target <= deadline else { throw RateLimitError.waitTooLong(needed: target - start, limit: limits.maxWait) }
            while clock.elapsed < target {
                try await clock.sleep(until: target)
                // A response that arrived meanwhile may have blocked everyone until a later reset.
                if blockedUntil > target {
                    guard blockedUntil <= deadline else {
                        throw RateLimitError.waitTooLong(needed: blockedUntil - start, limit: limits.maxWait)
                    }
                    target = blockedUntil
                }
            }
        } catch {
            let now = clock.elapsed
            requests?.give(1, now: now)
            tokens?.give(cost, now: now)
            throw error
        }
        let waited = max(.zero, target - start)
        stats.granted += 1
        if waited > .zero {
            stats.delayed += 1
            stats.totalWait += waited
        }
        return Permit(estimatedTokens: Int(cost), waited: waited)
    }

    /// Reconciles a sent request: charges its real token usage instead of the estimate, counts retried attempts
    /// as requests, and follows the server's view of what is left.
    package func finish(_ permit: Permit, usage: Usage?, attempts: Int = 1, rateLimit: RateLimitInfo = RateLimitInfo()) {
        let now = clock.elapsed
        if let usage {
            tokens?.give(Double(permit.estimatedTokens - (usage.promptTokens + usage.completionTokens)), now: now)
        }
        if attempts > 1 { requests?.give(-Double(attempts - 1), now: now) }
        if let remaining = rateLimit.remainingRequests {
            requests?.cap(atMost: remaining, now: now)
            if remaining <= 0 { block(now: now, reset: rateLimit.resetRequests) }
        }
        if let remaining = rateLimit.remainingTokens {
            tokens?.cap(atMost: remaining, now: now)
            if remaining <= 0 { block(now: now, reset: rateLimit.resetTokens) }
        }
    }

    /// Holds requests until the server's reset; an unreadable or missing reset waits one second, a cautious guess.
    private func block(now: Duration, reset: String?) {
        let wait = reset.flatMap(RateLimitReset.duration) ?? .seconds(1)
        blockedUntil = max(blockedUntil, now + wait)
        stats.exhausted += 1
    }
}
