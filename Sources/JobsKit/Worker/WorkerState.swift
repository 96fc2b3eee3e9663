import Foundation

/// The requests a worker has in flight and its running totals, shared by the main loop and the request tasks.
actor WorkerState {
    private(set) var summary: WorkerSummary
    private var running: Set<Int64> = []
    private var tasks: [Int64: Task<Void, Never>] = [:]

    init(summary: WorkerSummary) { self.summary = summary }

    var inFlightCount: Int { running.count }

    /// While the model server is down (its breaker open), claiming waits until the next probe is due.
    private(set) var outagePause: ContinuousClock.Instant?

    func pause(until: ContinuousClock.Instant) {
        outagePause = max(outagePause ?? until, until)
    }

    /// How long claiming still waits for the outage; nil when it need not.
    func pauseRemaining(now: ContinuousClock.Instant = .now) -> Duration? {
        guard let until = outagePause, until > now else {
            outagePause = nil
            return nil
        }
        return until - now
    }

    /// Counts a claim before its task exists, so a fast request cannot finish before it is registered.
    func begin(_ id: Int64) {
        running.insert(id)
        summary.claimed += 1
    }

    func attach(_ id: Int64, task: Task<Void, Never>) {
        if running.contains(id) { tasks[id] = task }
    }

    func finish(_ attempt: WorkerSummary.Attempt) {
        running.remove(attempt.requestID)
        tasks[attempt.requestID] = nil
        switch attempt.result {
        case .done: summary.done += 1
        case .retryScheduled: summary.retriesScheduled += 1
        case .failed: summary.failed += 1
        case .leaseLost, .released: break
        case .deferred: summary.deferred += 1
        }
        if summary.attempts.count < WorkerSummary.maxAttemptsListed { summary.attempts.append(attempt) }
    }

    /// Cancels what is still running (after the grace period); returns the tasks, for the caller to await.
    func cancelAll() -> [Task<Void, Never>] {
        for task in tasks.values { task.cancel() }
        return Array(tasks.values)
    }

    func recordReleased(_ ids: [Int64], notifications: Int, stopReason: WorkerSummary.StopReason, seconds: Double) {
        summary.released = ids
        summary.notifications = notifications
        summary.stopReason = stopReason
        summary.seconds = seconds
    }
}
