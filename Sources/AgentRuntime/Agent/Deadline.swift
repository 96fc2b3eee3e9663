/// The run's wall-clock limit passed while something was still running.
struct DeadlineReached: Error {}

/// Runs `operation`, cancelling it and throwing `DeadlineReached` if `deadline` comes first.
/// An operation that ignores cancellation still delays the return until it ends.
func withDeadline<T: Sendable>(_ deadline: ContinuousClock.Instant?, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    guard let deadline else { return try await operation() }
    return try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            throw DeadlineReached()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw DeadlineReached() }
        return first
    }
}
