import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

/// The server's event-loop thread: its name and its CPU clock.
enum LoopThread {
    /// Names the calling thread `loopback-http` and returns its CPU-time clock.
    static func prepare() -> clockid_t {
        Thread.current.name = "loopback-http"
        var clock = clockid_t()
        _ = pthread_getcpuclockid(pthread_self(), &clock)
        return clock
    }

    static func cpuSeconds(_ clock: clockid_t) -> Double {
        var spec = timespec()
        guard clock_gettime(clock, &spec) == 0 else { return 0 }
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
