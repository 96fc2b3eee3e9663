import Dispatch
import Foundation

/// Turns SIGTERM and SIGINT into a call instead of process death, so a worker can finish or release its requests
/// before exiting (systemd's and Kubernetes' stop sequence sends SIGTERM, then SIGKILL after a timeout).
public final class ShutdownSignals {
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "messageai.worker.signals")

    /// Ignores the default handlers (which would kill the process) and calls `handler` with the signal number.
    public init(_ signals: [Int32] = [SIGTERM, SIGINT], handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops listening; the signals stay ignored until the process exits.
    public func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
    }

    deinit { cancel() }

    public static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}
