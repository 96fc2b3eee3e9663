import AgentRuntime
import Foundation

/// A clock tests drive by hand. With `autoAdvance`, sleeping jumps time forward to the deadline at once;
/// without it, sleepers wait until `advance(by:)` passes their deadline (or their task is cancelled).
final class ManualClock: RateLimitClock, @unchecked Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: Duration = .zero
    private var sleepers: [Sleeper] = []
    private var nextID = 0
    let autoAdvance: Bool

    init(autoAdvance: Bool) { self.autoAdvance = autoAdvance }

    func now() -> Duration { locked { current } }

    /// Deadlines of the tasks asleep now, earliest first.
    var pendingDeadlines: [Duration] { locked { sleepers.map(\.deadline).sorted() } }

    func sleep(until deadline: Duration) async throws {
        if autoAdvance {
            try Task.checkCancellation()
            locked { current = max(current, deadline) }
            return
        }
        let id = locked { () -> Int in
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = locked { () -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if current >= deadline { return .success(()) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let cancelled = locked { () -> Sleeper? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by amount: Duration) {
        let due = locked { () -> [Sleeper] in
            current += amount
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Polls (bounded, about a second at most) until `count` tasks are asleep.
    func waitForSleepers(_ count: Int) async -> Bool {
        for _ in 0..<1000 {
            if locked({ sleepers.count }) >= count { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
