import AgentRuntime
import Foundation
import JobsKit
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// The model server's health on `/metrics` (issue 48 item 6): each call's outcome (its HTTP status, a timeout, the
/// breaker refusing it) and time, the breaker's state; and deploy/README's table lists exactly what is served.
@Suite("Model server metrics")
struct ModelServerMetricsTests {
    static func text(_ exposition: PrometheusExposition) -> String { String(decoding: exposition.render(), as: UTF8.self) }

    @Test("calls are counted by outcome and timed; the breaker's state is a gauge")
    func outcomesLatencyAndBreaker() async throws {
        let replies = NIOLockedValueBox(0)
        let server = try FakeOpenAIServer { _ in
            let n = replies.withLockedValue { $0 += 1; return $0 }
            switch n {
            case 1: return .chat(content: "{}")
            case 2, 3: return .status(500, body: #"{"error":{"message":"boom"}}"#, headers: ["Content-Type": "application/json"])
            default: return .delay(3, then: .chat(content: "{}"))
            }
        }
        defer { server.stop() }
        let factory = PrometheusBootstrap.factory()
        let exposition = PrometheusExposition(registry: factory.registry)
        let metrics = ModelServerMetrics(factory: factory)
        let client = MeteredChatClient(inner: server.client(timeout: .seconds(1), retry: FakeOpenAIServer.quickRetries(2)), metrics: metrics)
        let request = ChatCompletionRequest(model: "local", messages: [.user("hi")])
        _ = try await client.complete(request)
        await #expect(throws: LLMError.self) { _ = try await client.complete(request) }  // 500, retried once, 500 again
        await #expect(throws: LLMError.self) { _ = try await client.complete(request) }  // times out twice
        let served = Self.text(exposition)
        #expect(PrometheusText.value(served, #"messageai_model_requests_total{outcome="ok"}"#) == 1, "\(served)")
        #expect(PrometheusText.value(served, #"messageai_model_requests_total{outcome="http_500"}"#) == 1, "\(served)")
        #expect(PrometheusText.value(served, #"messageai_model_requests_total{outcome="timeout"}"#) == 1, "\(served)")
        #expect(PrometheusText.value(served, #"messageai_model_request_duration_seconds_count{outcome="error"}"#) == 2)
        #expect(PrometheusText.value(served, #"messageai_model_request_duration_seconds_bucket{outcome="ok",le="+Inf"}"#) == 1)

        metrics.sampleBreaker(server.baseURL)
        let breaker = CircuitBreaker.shared(for: server.baseURL)
        #expect(PrometheusText.value(Self.text(exposition), #"messageai_model_breaker_open{server="\#(breaker.server)"}"#)
                == (breaker.isOpen ? 1 : 0), "\(Self.text(exposition))")
    }

    @Test("a server that refuses connections opens its breaker: the gauge reads 1 and later calls count as unavailable")
    func breakerForcedOpen() async throws {
        // A port nothing listens on: the server that was there is stopped, so every attempt is refused.
        let dead = try FakeOpenAIServer { _ in .chat(content: "{}") }
        let baseURL = dead.baseURL
        dead.stop()
        let breaker = CircuitBreaker.shared(for: baseURL)
        let factory = PrometheusBootstrap.factory()
        let exposition = PrometheusExposition(registry: factory.registry)
        let metrics = ModelServerMetrics(factory: factory)
        metrics.sampleBreaker(baseURL)
        let gauge = #"messageai_model_breaker_open{server="\#(breaker.server)"}"#
        #expect(PrometheusText.value(Self.text(exposition), gauge) == 0, "closed before any failure")

        let client = MeteredChatClient(inner: dead.client(retry: FakeOpenAIServer.quickRetries(5), breaker: breaker), metrics: metrics)
        let request = ChatCompletionRequest(model: "local", messages: [.user("hi")])
        await #expect(throws: LLMError.self) { _ = try await client.complete(request) }  // five refused attempts open it
        #expect(breaker.isOpen, "five refused connections in a row open the breaker")
        await #expect(throws: LLMError.self) { _ = try await client.complete(request) }  // refused unsent
        metrics.sampleBreaker(baseURL)
        let served = Self.text(exposition)
        #expect(PrometheusText.value(served, gauge) == 1, "\(served)")
        #expect(PrometheusText.value(served, #"messageai_model_requests_total{outcome="unavailable"}"#) ?? 0 >= 1, "\(served)")
    }

    @Test("deploy/README's metric table names every metric the worker serves, and nothing else")
    func tableMatchesWhatIsServed() throws {
        let readme = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("deploy/README.md"), encoding: .utf8)
        let listed = Set(readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `messageai_") else { return nil }
            return line.dropFirst(3).split(separator: "`").first.map(String.init)
        })
        let served: Set<String> = [
            WorkerMetrics.requests, WorkerMetrics.requestDuration, WorkerMetrics.modelTokens, WorkerMetrics.modelCost,
            WorkerMetrics.modelCostUnknown, WorkerMetrics.leaseRenewals, WorkerMetrics.queueDepth, WorkerMetrics.inFlight,
            WorkerMetrics.notifications, WorkerMetrics.quarantined,
            ModelServerMetrics.calls, ModelServerMetrics.duration, ModelServerMetrics.breakerOpen,
        ]
        #expect(listed == served, "listed but not served: \(listed.subtracting(served)); served but not listed: \(served.subtracting(listed))")
        // Every result an attempt can end with is in the table's labels.
        for result in ["done", "retry_scheduled", "failed", "lease_lost", "released", "deferred"] {
            #expect(readme.contains(result), "the table lacks result=\(result)")
        }
    }
}
