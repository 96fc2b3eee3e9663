import Foundation

/// The requests a worker has in flight and its running totals, shared by the main loop and the request tasks.
actor WorkerState {
    private(set) var summary: WorkerSummary
    private var running: Set<Int64> = []
    private var tasks: [Int64: Task<Void, Never>] = [:]

    init(summary: WorkerSummary) { self.summary = summary }

    var inFlightCount: Int { running.count }

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
