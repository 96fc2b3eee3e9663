import Foundation
import NIOConcurrencyHelpers

/// Holds the replies sent through it (`ScriptedReply.held`) until a test opens it, so a test decides when a model
/// request ends instead of guessing a delay. Records what it holds, so the test can wait until a request is in flight.
package final class ReplyGate: Sendable {
    private struct State {
        var open = false
        var held: [RecordedRequest] = []
        var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Lets every held reply (and every later one) through.
    package func open() {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            state.open = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: true) }
    }

    package var isOpen: Bool { state.withLockedValue { $0.open } }
    /// The requests whose replies were held here, in arrival order (including ones let through since).
    package var held: [RecordedRequest] { state.withLockedValue { $0.held } }

    /// Records `request` and suspends until the gate opens (true) or the task is cancelled (false).
    func pass(_ request: RecordedRequest) async -> Bool {
        let id = state.withLockedValue { state -> Int in
            state.held.append(request)
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let passNow: Bool? = state.withLockedValue { state in
                    if state.open { return true }
                    if Task.isCancelled { return false }
                    state.waiting[id] = continuation
                    return nil
                }
                if let passNow { continuation.resume(returning: passNow) }
            }
        } onCancel: {
            state.withLockedValue { $0.waiting.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
