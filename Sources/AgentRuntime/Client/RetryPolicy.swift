package import Foundation

/// When and how long to wait before retrying. Waits are exponential with full jitter unless the server says how long.
package struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, including the first.
    package var maxAttempts: Int
    package var baseDelay: Duration
    package var maxDelay: Duration
    /// Wall-clock budget for all attempts and waits of one call; no retry starts that would wait beyond it.
    package var totalBudget: Duration
    /// A server hint longer than this is not waited for; the call fails instead.
    package var maxRetryAfter: Duration

    package init(
        maxAttempts: Int = 4,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(8),
        totalBudget: Duration = .seconds(180),
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.totalBudget = totalBudget
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt, no retries.
    package static let noRetries = RetryPolicy(maxAttempts: 1)

    /// Statuses worth retrying as often as the policy allows: a timeout, a rate limit, an unavailable or overloaded
    /// server or gateway. A 500 gets one retry (`LLMError.retryLimit`); 400/401/403/404/422 are the caller's fault.
    package static func isRetryable(status: Int) -> Bool {
        [408, 429, 502, 503, 504].contains(status)
    }

    /// True when a server's error text says the model's output did not fit the requested format (llama.cpp:
    /// "model produced output that does not match the expected format"); asking again usually gets the same.
    package static func namesOutputFormat(_ message: String) -> Bool {
        let text = message.lowercased()
        return ["format", "grammar", "schema", "parse"].contains { text.contains($0) }
    }

    /// The wait after a timed-out attempt: the server may still be working on it (OpenAI keeps generating; a
    /// queued local server may not have started it), so the retry waits half the attempt limit, at most 30 s,
    /// and never less than the ordinary backoff.
    package func backoff(afterTimeout limit: Duration, attempt: Int) -> Duration {
        max(backoff(afterAttempt: attempt), min(limit / 2, .seconds(30)))
    }

    /// The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed: `random(0, min(max, base·2^(attempt-1)))`.
    package func backoff(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let ceiling = min(maxDelay.seconds, baseDelay.seconds * pow(2, exponent))
        return .milliseconds(Int64((ceiling * min(max(random, 0), 1) * 1000).rounded()))
    }

    /// The server's requested wait: `retry-after-ms`, else `retry-after` as seconds or an HTTP date.
    package static func retryAfter(headers: [String: String], now: Date = Date()) -> Duration? {
        if let ms = headers["retry-after-ms"].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), ms.isFinite, ms >= 0 {
            return .milliseconds(Int64(ms.rounded(.up)))
        }
        guard let raw = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(raw), seconds.isFinite, seconds >= 0 {
            return .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        if let date = httpDate(raw) {
            return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
        }
        return nil
    }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
