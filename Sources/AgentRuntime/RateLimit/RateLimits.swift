import Foundation

/// An account's request and token budget per minute. Both are optional: with neither set, the limiter only
/// follows the server's `x-ratelimit-*` headers.
package struct RateLimits: Sendable, Hashable {
    package var requestsPerMinute: Int?
    package var tokensPerMinute: Int?
    /// The longest a request waits for capacity before failing, so a wrong limit or a long server reset
    /// fails one conversation (retried by the next scan) instead of stalling the whole job.
    package var maxWait: Duration
    /// Completion tokens counted for a request that sets no maximum (servers reserve some anyway).
    package var defaultMaxTokens: Int

    package init(requestsPerMinute: Int? = nil, tokensPerMinute: Int? = nil, maxWait: Duration = .seconds(300), defaultMaxTokens: Int = 1024) {
        self.requestsPerMinute = requestsPerMinute
        self.tokensPerMinute = tokensPerMinute
        self.maxWait = maxWait
        self.defaultMaxTokens = max(0, defaultMaxTokens)
    }

    /// Reads `OPENAI_RPM` and `OPENAI_TPM` (positive integers); unset or empty means no limit of that kind.
    package static func fromEnvironment(_ env: [String: String]) throws(RateLimitError) -> RateLimits {
        RateLimits(requestsPerMinute: try positive(env, "OPENAI_RPM"), tokensPerMinute: try positive(env, "OPENAI_TPM"))
    }

    /// Command-line values win over the environment's, each kind separately.
    package func overriding(requestsPerMinute rpm: Int?, tokensPerMinute tpm: Int?) throws(RateLimitError) -> RateLimits {
        var limits = self
        if let rpm {
            guard rpm > 0 else { throw .invalidSetting(name: "--rpm", value: "\(rpm)") }
            limits.requestsPerMinute = rpm
        }
        if let tpm {
            guard tpm > 0 else { throw .invalidSetting(name: "--tpm", value: "\(tpm)") }
            limits.tokensPerMinute = tpm
        }
        return limits
    }

    private static func positive(_ env: [String: String], _ name: String) throws(RateLimitError) -> Int? {
        guard let raw = env[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        guard let value = Int(raw), value > 0 else { throw .invalidSetting(name: name, value: raw) }
        return value
    }
}

/// Why the limiter refused a request.
package enum RateLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Capacity would free up only after `needed`, longer than the configured `limit`.
    case waitTooLong(needed: Duration, limit: Duration)
    /// A limit setting is not a positive integer.
    case invalidSetting(name: String, value: String)

    package var description: String {
        switch self {
        case .waitTooLong(let needed, let limit):
            "rate limit: the request could start only after \(needed.wholeMilliseconds / 1000) s, longer than the "
                + "\(limit.wholeMilliseconds / 1000) s a request may wait (check --rpm/--tpm against the account's limits)"
        case .invalidSetting(let name, let value):
            "\(name) must be a positive integer (requests or tokens per minute), not '\(value.prefix(40))'"
        }
    }
}
