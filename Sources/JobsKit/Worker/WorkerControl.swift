import Foundation

/// The worker's doorbell and stop switch. Anything that may make new work claimable (a NOTIFY, a finished
/// request, a stop request) rings it; the main loop sleeps on it between claim passes, with a timeout (the poll).
actor WorkerControl {
    private(set) var stopRequested = false
    /// Set once the grace period is over: in-flight attempts are being cancelled and released, so they must
    /// not record failures of their own.
    private(set) var abandoning = false
    private(set) var notifications = 0
    private var rung = false
    private var waiter: (generation: UInt64, continuation: CheckedContinuation<Void, Never>)?
    private var generation: UInt64 = 0
    private var timer: Task<Void, Never>?

    func ring() {
        guard let waiter else {
            rung = true
            return
        }
        self.waiter = nil
        timer?.cancel()
        waiter.continuation.resume()
    }

    func notified() {
        notifications += 1
        ring()
    }

    func requestStop() {
        stopRequested = true
        ring()
    }

    func abandon() { abandoning = true }

    /// Returns when rung (or rung since the last wait), after `duration`, or when the calling task is cancelled.
    func wait(for duration: Duration) async {
        if rung {
            rung = false
            return
        }
        generation += 1
        let current = generation
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter = (current, continuation)
                timer = Task { [weak self] in
                    try? await Task.sleep(for: max(.zero, duration))
                    await self?.timeUp(current)
                }
            }
        } onCancel: {
            Task { await self.ring() }
        }
    }

    private func timeUp(_ expired: UInt64) {
        guard let waiter, waiter.generation == expired else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }
}
