import Foundation

/// A `Clock` that only moves when a test calls `advance(by:)`, for code that waits on time through an injected
/// `any Clock<Duration>`: the test decides when a heartbeat or timer fires instead of sleeping until it does.
/// Sleepers wake when time reaches their deadline, or throw `CancellationError` when their task is cancelled.
package final class TestClock: Clock, @unchecked Sendable {
    package struct Instant: InstantProtocol {
        package let offset: Duration
        package init(offset: Duration) { self.offset = offset }
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0

    package init() {}

    package var now: Instant { lock.withLock { current } }
    package var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock now.
    package var sleeperCount: Int { lock.withLock { sleepers.count } }
    /// The deadlines of the tasks asleep now, as offsets from the clock's origin, earliest first.
    package var pendingDeadlines: [Duration] { lock.withLock { sleepers.map(\.deadline.offset).sorted() } }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
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
        advance { $0.advanced(by: duration) }
    }

    /// Moves time forward to `offset` from the origin (never back), waking the sleepers it reaches.
    package func advance(to offset: Duration) {
        advance { max($0, Instant(offset: offset)) }
    }

    private func advance(_ move: (Instant) -> Instant) {
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
