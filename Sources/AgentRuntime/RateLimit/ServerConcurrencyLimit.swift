package import Foundation
import NIOConcurrencyHelpers

/// Bounds the requests in flight to one model server, across the whole process: every feature of every
/// conversation, the agent and the batch client wait in one line. Waiters are served first come, first served,
/// so the features of a conversation that asked first are not starved by later ones.
///
/// A hand-written FIFO semaphore: none of the packages this project uses offers an async one.
package actor ServerConcurrencyLimit {
    package nonisolated let limit: Int
    private var inFlight = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0
    /// The most requests that were in flight at once, for tests and reports.
    package private(set) var peakInFlight = 0

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a slot. Throws `CancellationError` if the task is cancelled while waiting.
    package func acquire() async throws {
        if inFlight < limit, waiters.isEmpty {
            take()
            return
        }
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Frees a slot: the longest waiter takes it over.
    package func release() {
        if waiters.isEmpty {
            inFlight = max(0, inFlight - 1)
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Runs `body` holding a slot.
    func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    /// Requests waiting for a slot now.
    package var waiting: Int { waiters.count }

    private func take() {
        inFlight += 1
        peakInFlight = max(peakInFlight, inFlight)
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private static let registry = NIOLockedValueBox([String: ServerConcurrencyLimit]())

    /// The process's one limit for the server at `baseURL`. The first caller's `limit` wins; a later caller asking
    /// for a different one gets the existing limit, so one server never has two lines.
    package static func shared(for baseURL: URL, limit: Int) -> ServerConcurrencyLimit {
        let key = baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return registry.withLockedValue { limits in
            if let existing = limits[key] { return existing }
            let created = ServerConcurrencyLimit(limit: limit)
            limits[key] = created
            return created
        }
    }
}
