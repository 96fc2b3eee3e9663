import Core
import Foundation

/// The package's `MonotonicClock` driven by a test: time moves only when the test calls `advance(by:)` (or, made with
/// `advancesWhenSlept`, jumps to each sleeper's deadline at once), so the test decides when a heartbeat, timer or rate
/// limit refill comes instead of sleeping until it does. Sleepers wake when time reaches their deadline, or throw
/// `CancellationError` when their task is cancelled.
package final class TestClock: MonotonicClock, @unchecked Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Whether a sleep moves time forward to its deadline at once (virtual time) instead of waiting for `advance`.
    package let advancesWhenSlept: Bool
    private let lock = NSLock()
    private var current: Duration = .zero
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0

    package init(advancesWhenSlept: Bool = false) { self.advancesWhenSlept = advancesWhenSlept }

    package var elapsed: Duration { lock.withLock { current } }

    /// How many tasks are asleep on this clock now.
    package var sleeperCount: Int { lock.withLock { sleepers.count } }
    /// The deadlines of the tasks asleep now, as offsets from the clock's origin, earliest first.
    package var pendingDeadlines: [Duration] { lock.withLock { sleepers.map(\.deadline).sorted() } }

    package func sleep(until deadline: Duration) async throws {
        if advancesWhenSlept {
            try Task.checkCancellation()
            advance(to: deadline)
            return
        }
        let id = lock.withLock { () -> UInt64 in
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = lock.withLock { () -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if current >= deadline { return .success(()) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = lock.withLock { () -> Sleeper? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline it reaches.
    package func advance(by duration: Duration) {
        advance { $0 + duration }
    }

    /// Moves time forward to `offset` from the origin (never back), waking the sleepers it reaches.
    package func advance(to offset: Duration) {
        advance { max($0, offset) }
    }

    private func advance(_ move: (Duration) -> Duration) {
        let woken = lock.withLock { () -> [Sleeper] in
            current = move(current)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Waits (bounded by real time) until at least `count` tasks sleep on this clock; false if they never do.
    package func waitForSleepers(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if sleeperCount >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return sleeperCount >= count
    }
}
