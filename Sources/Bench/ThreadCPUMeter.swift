import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sums the CPU time of a set of threads (each adds its own, read from `CLOCK_THREAD_CPUTIME_ID`), so the scan
/// benchmark can subtract its in-process fake server's CPU from the whole process's: in production that server is
/// OpenAI's, and its parse of every ~9 KB request is not the scanner's cost.
final class ThreadCPUMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: UInt64 = 0

    /// CPU seconds added so far.
    var seconds: Double { lock.withLock { Double(nanoseconds) / 1e9 } }

    /// Adds CPU the calling thread used since it last read `threadNanoseconds()` as `since` (0: since it started).
    /// Returns the thread's clock now, for the next call.
    @discardableResult
    func addCallingThread(since: UInt64 = 0) -> UInt64 {
        let now = Self.threadNanoseconds()
        lock.withLock { nanoseconds += now &- since }
        return now
    }

    /// The calling thread's CPU time (user + system) since it started.
    static func threadNanoseconds() -> UInt64 {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return 0 }
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
