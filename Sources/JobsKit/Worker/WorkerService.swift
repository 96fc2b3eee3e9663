import ServiceLifecycle

/// The worker as a `Service`, so a `ServiceGroup` turns SIGTERM and SIGINT into its graceful shutdown (stop claiming,
/// let in-flight requests finish within the grace period, release the rest) instead of process death.
package actor WorkerService: Service {
    package let worker: RequestWorker
    private let onShutdown: @Sendable () -> Void
    /// Set when `run()` returns normally.
    package private(set) var summary: WorkerSummary?

    /// - Parameter onShutdown: called once when the graceful shutdown begins (e.g. to tell the operator).
    package init(_ worker: RequestWorker, onShutdown: @escaping @Sendable () -> Void = {}) {
        self.worker = worker
        self.onShutdown = onShutdown
    }

    package func run() async throws {
        let worker = self.worker
        let result = try await withGracefulShutdownHandler {
            try await worker.run()
        } onGracefulShutdown: { [onShutdown] in
            onShutdown()
        }
        summary = result
    }
}
