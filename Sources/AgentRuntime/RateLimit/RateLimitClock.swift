/// The limiter's time source: real time in production, a hand-driven clock in tests so no test sleeps.
package protocol RateLimitClock: Sendable {
    /// Time elapsed since a fixed origin.
    func now() -> Duration
    /// Returns at `deadline` (on the same scale as `now()`) or later; throws `CancellationError` when cancelled.
    func sleep(until deadline: Duration) async throws
}

/// Monotonic real time.
package struct ContinuousRateLimitClock: RateLimitClock {
    private let origin = ContinuousClock.now

    package init() {}

    package func now() -> Duration { ContinuousClock.now - origin }

    package func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}
