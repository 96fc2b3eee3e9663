package import Foundation
import ServiceLifecycle

/// The scan as a `Service`, so a `ServiceGroup` turns SIGTERM and SIGINT into its graceful shutdown: claim nothing
/// more, finish the conversations in flight, mark the run (`partial`, with the reason) and return. Cancellation (the
/// group's hard stop) rolls back and releases what is in flight instead; either way `run()` returns only after
/// every conversation's work has ended, so nothing of the scan commits after the process says it stopped.
package actor ScanJob: Service {
    package let scan: ScanService
    private let now: Date
    private let progress: ScanService.Progress?
    private let onShutdown: @Sendable () -> Void
    /// Set when `run()` returns.
    package private(set) var summary: ScanService.Summary?

    /// - Parameter onShutdown: called once when the graceful shutdown begins (e.g. to tell the operator).
    package init(_ scan: ScanService, now: Date = Date(), progress: ScanService.Progress? = nil,
                onShutdown: @escaping @Sendable () -> Void = {}) {
        self.scan = scan
        self.now = now
        self.progress = progress
        self.onShutdown = onShutdown
    }

    package func run() async throws {
        let (scan, now, progress) = (self.scan, self.now, self.progress)
        summary = try await withGracefulShutdownHandler {
            try await scan.run(now: now, progress: progress)
        } onGracefulShutdown: { [onShutdown] in
            onShutdown()
        }
    }
}
