import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server's event-loop thread: its name and its CPU clock.
enum ServerThread {
    /// Names the calling thread (seen in `ps -L`, `top -H` and `perf`) and returns its CPU-time clock.
    static func prepare(name: String) -> clockid_t {
        Thread.current.name = name
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
