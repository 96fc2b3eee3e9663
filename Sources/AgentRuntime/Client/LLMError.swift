import Foundation

/// Why a completion failed. Descriptions are safe to log: they never contain the API key
/// (server text is scrubbed of it before it is stored here).
public indirect enum LLMError: Error, Sendable, CustomStringConvertible {
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

    public var description: String {
        switch self {
        case .http(let status, let message, let requestID):
            "HTTP \(status) from the LLM server: \(message)" + (requestID.map { " (request id \($0))" } ?? "")
        case .transport(let why): "LLM transport error: \(why)"
        case .timeout(let limit): "LLM request timed out after \(limit)"
        case .decoding(let why, let excerpt): "LLM response could not be decoded: \(why); body starts: \(excerpt)"
        case .cancelled: "LLM request cancelled"
        case .retriesExhausted(let attempts, let last): "LLM request failed after \(attempts) attempts; last error: \(last)"
        case .invalidRequest(let why): "invalid LLM request: \(why)"
        }
    }

    /// Whether another attempt could succeed.
    public var isRetryable: Bool {
        switch self {
        case .http(let status, _, _): RetryPolicy.isRetryable(status: status)
        case .transport, .timeout: true
        case .decoding, .cancelled, .retriesExhausted, .invalidRequest: false
        }
    }

    /// The error behind any retries.
    public var underlying: LLMError {
        if case .retriesExhausted(_, let last) = self { last.underlying } else { self }
    }

    static let excerptLimit = 500

    /// Cuts text to the excerpt limit and removes every occurrence of `secret`.
    static func excerpt(_ text: String, hiding secret: String?) -> String {
        var scrubbed = text
        if let secret, !secret.isEmpty { scrubbed = scrubbed.replacingOccurrences(of: secret, with: "[redacted]") }
        guard scrubbed.count > excerptLimit else { return scrubbed }
        return String(scrubbed.prefix(excerptLimit)) + "…"
    }
}
