/// The one clock for code that waits on time (the rate limiter's refills, the worker's lease heartbeat). Its time is
/// the duration elapsed since the clock's origin, so the protocol has no associated type and `any MonotonicClock` is
/// a plain value. Production code runs on `SystemClock`; tests pass TestSupport's `TestClock`, which moves only when
/// told, so no test sleeps to see a timer fire.
package protocol MonotonicClock: Sendable {
    /// Time elapsed since the clock's origin.
    var elapsed: Duration { get }
    /// Returns once `elapsed` has reached `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Duration) async throws
}

extension MonotonicClock {
    /// Returns after `duration` of this clock's time.
    package func sleep(for duration: Duration) async throws {
        try await sleep(until: elapsed + duration)
    }
}

/// Real monotonic time (`ContinuousClock`), counted from the moment the value is made.
package struct SystemClock: MonotonicClock {
    private let origin = ContinuousClock.now

    package init() {}

    package var elapsed: Duration { ContinuousClock.now - origin }

    package func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}
