import AgentRuntime

extension Duration {
    /// Whole seconds (the fraction dropped), for binds and reports that have always been integers.
    var wholeSeconds: Int { Int(components.seconds) }

    /// A Postgres setting such as `lock_timeout`: whole milliseconds, at least 1 (0 would mean "no limit").
    var postgresMilliseconds: String { "\(max(1, Int((seconds * 1000).rounded())))ms" }
}
