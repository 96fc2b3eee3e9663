package import Core
package import Foundation

/// The model client's retries: what an HTTP answer says about trying again, and the client's bounds.
extension RetryPolicy {
    /// The policy of model calls: exponential waits with full jitter (unless the server says how long), 4 attempts,
    /// at most 8 s apart, 3 minutes for the whole call, a server's hint of up to a minute.
    package static func modelCalls(
        maxAttempts: Int = 4,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(8),
        totalBudget: Duration = .seconds(180),
        maxRetryAfter: Duration = .seconds(60)
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay, jitter: .full,
                    totalBudget: totalBudget, maxRetryAfter: maxRetryAfter)
    }

    /// Statuses worth retrying as often as the policy allows: a timeout, a rate limit, an unavailable or overloaded
    /// server or gateway. A 500 gets one retry (`LLMError.retryLimit`); 400/401/403/404/422 are the caller's fault.
    package static func isRetryable(status: Int) -> Bool {
        [408, 429, 502, 503, 504].contains(status)
    }

    /// True when a server's error text says the model's output did not fit the requested format (llama.cpp:
    /// "model produced output that does not match the expected format"); asking again usually gets the same.
    static func namesOutputFormat(_ message: String) -> Bool {
        let text = message.lowercased()
        return ["format", "grammar", "schema", "parse"].contains { text.contains($0) }
    }

    /// The wait after a timed-out attempt: the server may still be working on it (OpenAI keeps generating; a
    /// queued local server may not have started it), so the retry waits half the attempt limit, at most 30 s,
    /// and never less than the ordinary backoff.
    package func delay(afterTimeout limit: Duration, attempt: Int) -> Duration {
        max(delay(afterAttempt: attempt), min(limit / 2, .seconds(30)))
    }

    /// The server's requested wait: `retry-after-ms`, else `retry-after` as seconds or an HTTP date.
    package static func retryAfter(headers: [String: String], now: Date = Date()) -> Duration? {
        if let ms = headers["retry-after-ms"].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), ms.isFinite, ms >= 0 {
            return .milliseconds(ofSeconds: ms / 1000, rounding: .up)
        }
        guard let raw = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(raw), seconds.isFinite, seconds >= 0 {
            return .milliseconds(ofSeconds: seconds, rounding: .up)
        }
        if let date = httpDate(raw) {
            return .milliseconds(ofSeconds: max(0, date.timeIntervalSince(now)), rounding: .towardZero)
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
