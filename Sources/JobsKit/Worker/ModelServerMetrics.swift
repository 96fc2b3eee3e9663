package import AgentRuntime
package import CoreMetrics
package import Foundation
package import Logging

/// The model server's health on the worker's `/metrics`: every model call's time and outcome (`ok`, or why it failed:
/// its HTTP status, a timeout, a transport error, the breaker refusing it), recorded by wrapping the client, and the
/// circuit breaker's state, sampled at scrape time. With the default (un-bootstrapped) factory nothing is recorded.
package struct ModelServerMetrics: Sendable {
    package static let calls = "messageai_model_requests_total"
    package static let duration = "messageai_model_request_duration_seconds"
    package static let breakerOpen = "messageai_model_breaker_open"

    private let factory: any MetricsFactory

    package init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    var enabled: Bool { !(factory is NOOPMetricsHandler) }

    /// One finished call: counted by outcome, its time in the latency histogram.
    func record(outcome: String, duration: Duration) {
        guard enabled else { return }
        Counter(label: Self.calls, dimensions: [("outcome", outcome)], factory: factory).increment()
        CoreMetrics.Timer(label: Self.duration, dimensions: [("outcome", outcome == "ok" ? "ok" : "error")], factory: factory)
            .recordNanoseconds(duration.wholeNanoseconds)
    }

    /// The breaker of the server at `baseURL`: 1 while it is open or probing (calls fail fast), 0 while closed.
    package func sampleBreaker(_ baseURL: URL) {
        guard enabled else { return }
        let breaker = CircuitBreaker.shared(for: baseURL)
        Gauge(label: Self.breakerOpen, dimensions: [("server", breaker.server)], factory: factory).record(breaker.isOpen ? 1 : 0)
    }

    /// How a call ended, as the `outcome` label: `ok`, `http_<status>`, `timeout`, `transport`, `unavailable` (the
    /// breaker refused it), `decoding`, `cancelled` or `other`. A call that ran out of retries is labelled by its last error.
    static func outcome(of error: any Error) -> String {
        guard let error = error as? LLMError else { return "other" }
        switch error {
        case .http(let status, _, _): return "http_\(status)"
        case .timeout: return "timeout"
        case .transport: return "transport"
        case .serverUnavailable: return "unavailable"
        case .decoding: return "decoding"
        case .cancelled: return "cancelled"
        case .retriesExhausted(_, let last): return outcome(of: last)
        case .invalidRequest: return "other"
        }
    }
}

/// A model client whose every call is recorded in `ModelServerMetrics`.
package struct MeteredChatClient: ChatCompleting {
    package let inner: any ChatCompleting
    package let metrics: ModelServerMetrics

    package init(inner: any ChatCompleting, metrics: ModelServerMetrics = ModelServerMetrics()) {
        self.inner = inner
        self.metrics = metrics
    }

    package var circuitBreaker: CircuitBreaker? { inner.circuitBreaker }

    package func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        try await measured { try await inner.complete(request) }
    }

    package func complete(_ request: ChatCompletionRequest, logger: Logger) async throws -> ChatCompletionResult {
        try await measured { try await inner.complete(request, logger: logger) }
    }

    private func measured(_ call: () async throws -> ChatCompletionResult) async throws -> ChatCompletionResult {
        let started = ContinuousClock.now
        do {
            let result = try await call()
            metrics.record(outcome: "ok", duration: .now - started)
            return result
        } catch {
            metrics.record(outcome: ModelServerMetrics.outcome(of: error), duration: .now - started)
            throw error
        }
    }
}
