extension Duration {
    /// The duration in (fractional) seconds, for APIs that take `TimeInterval`, reports and SQL binds such as
    /// `make_interval(secs => $n)`; the package's one conversion between `Duration` and numbers.
    package var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Whole seconds, the fraction dropped: for binds and reports that have always been integers (leases).
    package var wholeSeconds: Int { Int(components.seconds) }

    /// Whole milliseconds, the fraction dropped: for logs, traces and benchmark reports.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds, for NIO's `TimeAmount` and metrics timers.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// `seconds` as a whole number of milliseconds, rounded by `rule`: `.up` for a wait that must not end early
    /// (a server's retry hint, a rate limit's refill), `.towardZero` for a flag or setting read as seconds.
    /// Saturates at `secondsBound` either way (NaN reads as 0): a server's `retry-after: 1e300` is a very long wait, not
    /// an overflow that kills the process, and stays small enough for `wholeNanoseconds`.
    package static func milliseconds(ofSeconds seconds: Double, rounding rule: FloatingPointRoundingRule) -> Duration {
        let bounded = seconds.isNaN ? 0 : min(max(seconds, -secondsBound), secondsBound)
        return .milliseconds(Int64((bounded * 1000).rounded(rule)))
    }

    /// About 31 years: longer than any real wait, well inside `Int64` nanoseconds.
    package static let secondsBound = 1e9

    /// A Postgres setting such as `lock_timeout`: whole milliseconds, at least 1 (0 would mean "no limit").
    package var postgresMilliseconds: String { "\(max(1, Int((seconds * 1000).rounded())))ms" }
}
