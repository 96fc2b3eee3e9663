import AgentRuntime
import Foundation
import TestSupport

/// The rate limiter's clock driven by hand, over TestSupport's one manual clock (`TestClock`). With `autoAdvance`,
/// sleeping jumps time forward to the deadline at once; without it, sleepers wait until `advance(by:)` passes their
/// deadline (or their task is cancelled).
final class ManualClock: RateLimitClock, Sendable {
    private let clock = TestClock()
    let autoAdvance: Bool

    init(autoAdvance: Bool) { self.autoAdvance = autoAdvance }

    func now() -> Duration { clock.now.offset }

    /// Deadlines of the tasks asleep now, earliest first.
    var pendingDeadlines: [Duration] { clock.pendingDeadlines }

    func sleep(until deadline: Duration) async throws {
        if autoAdvance {
            try Task.checkCancellation()
            clock.advance(to: deadline)
            return
        }
        try await clock.sleep(until: TestClock.Instant(offset: deadline))
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by amount: Duration) { clock.advance(by: amount) }

    /// Polls (bounded, about a second at most) until `count` tasks are asleep.
    func waitForSleepers(_ count: Int) async -> Bool { await clock.waitForSleepers(count, timeout: .seconds(1)) }
}
