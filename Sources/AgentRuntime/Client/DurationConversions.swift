extension Duration {
    /// The duration in (fractional) seconds, for APIs that take `TimeInterval` and SQL binds such as
    /// `make_interval(secs => $n)`; the package's one definition.
    package var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, for NIO's `TimeAmount` and metrics timers.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole milliseconds, for logs and traces.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
