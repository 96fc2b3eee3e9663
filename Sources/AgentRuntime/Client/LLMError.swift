import Foundation
import Core

/// Why a completion failed. Descriptions are safe to log: they never contain the API key
/// (server text is scrubbed of it before it is stored here).
package indirect enum LLMError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error status. `message` is its `error.message` (or body) excerpt.
    case http(status: Int, message: String, requestID: String?)
    case transport(String)
    case timeout(Duration)
    /// A 2xx body that is not a usable Chat Completions response.
    case decoding(String, bodyExcerpt: String)
    case cancelled
    case retriesExhausted(attempts: Int, last: LLMError)
    /// The request could not be built (e.g. no model given and no default configured).
    case invalidRequest(String)
    /// Not sent: the server's circuit breaker is open (`CircuitBreaker`), it failed too many requests in a row.
    case serverUnavailable(CircuitBreaker.Outage)

    package var description: String {
        switch self {
        case .http(let status, let message, let requestID):
            "HTTP \(status) from the LLM server: \(message)" + (requestID.map { " (request id \($0))" } ?? "")
        case .transport(let why): "LLM transport error: \(why)"
        case .timeout(let limit):
            "LLM request timed out after \(limit.seconds.formatted()) seconds (a slow or busy server: raise "
                + "\(LLMConfiguration.timeoutSetting) or --llm-timeout, or lower \(LLMConfiguration.concurrencySetting))"
        case .decoding(let why, let excerpt): "LLM response could not be decoded: \(why); body starts: \(excerpt)"
        case .cancelled: "LLM request cancelled"
        case .retriesExhausted(let attempts, let last): "LLM request failed after \(attempts) attempts; last error: \(last)"
        case .invalidRequest(let why): "invalid LLM request: \(why)"
        case .serverUnavailable(let outage): "\(outage)"
        }
    }

    /// Whether another attempt could succeed: timeouts, connection failures, 408, 429, 502, 503, 504, and (once,
    /// see `retryLimit`) a 500 or a 400 that blames the output format.
    package var isRetryable: Bool { retryLimit != 0 }

    /// How many retries this kind of failure earns at most; nil means the policy's `maxAttempts` decides.
    /// A timed-out request may still be running on the server, and a 500 or an output-format 400 usually comes
    /// back the same: each gets one retry.
    package var retryLimit: Int? {
        switch self {
        case .http(let status, let message, _):
            if RetryPolicy.isRetryable(status: status) { return nil }
            if status == 500 || (status == 400 && RetryPolicy.namesOutputFormat(message)) { return 1 }
            return 0
        case .timeout: return 1
        case .transport: return nil
        case .decoding, .cancelled, .retriesExhausted, .invalidRequest, .serverUnavailable: return 0
        }
    }

    /// Which class of failure this is, for counting retries per class.
    var retryClass: String {
        switch self {
        case .http(let status, _, _): "http \(status)"
        case .timeout: "timeout"
        default: "other"
        }
    }

    /// HTTP attempts this failed call made (and may be billed for): none when the request could not be built.
    package var attempts: Int {
        switch self {
        case .retriesExhausted(let attempts, _): attempts
        case .invalidRequest, .serverUnavailable: 0
        default: 1
        }
    }

    /// The outage when the server's circuit breaker refused this call (or opened as it failed); nil otherwise.
    package var outage: CircuitBreaker.Outage? {
        if case .serverUnavailable(let outage) = underlying { outage } else { nil }
    }

    /// A failure of the server rather than of the request: refused, reset, timed out, a 5xx, or refused by the open
    /// breaker. Not the conversation's fault, whatever it was asked.
    package var isOutageClass: Bool {
        switch underlying {
        case .transport, .timeout, .serverUnavailable: true
        case .http(let status, _, _): status >= 500
        default: false
        }
    }

    /// The error behind any retries.
    package var underlying: LLMError {
        if case .retriesExhausted(_, let last) = self { last.underlying } else { self }
    }

    static let excerptLimit = 500

    /// Cuts text to the excerpt limit and removes every occurrence of `secret`.
    static func excerpt(_ text: String, hiding secret: String?) -> String {
        var scrubbed = text
        if let secret, !secret.isEmpty { scrubbed = SecretText.replacing(secret, in: scrubbed, with: "[redacted]") }
        guard scrubbed.count > excerptLimit else { return scrubbed }
        return String(scrubbed.prefix(excerptLimit)) + "…"
    }
}
