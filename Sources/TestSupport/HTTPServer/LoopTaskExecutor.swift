import NIOCore

/// Runs the handlers' tasks on the server's own event-loop thread, not on Swift's shared pool: a test that blocks
/// pool threads while it waits for an answer (a raw socket read) must not starve the server that gives it, and
/// the server's CPU, handlers included, stays on the one thread `cpuSeconds` reads.
@available(macOS 15.0, *)
final class LoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
