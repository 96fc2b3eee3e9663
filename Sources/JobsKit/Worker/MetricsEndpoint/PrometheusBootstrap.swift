import CoreMetrics
package import Prometheus

/// Makes swift-metrics record into a Prometheus registry, once per process. Only `worker --metrics-port` calls it,
/// so every other command keeps the no-op backend.
package enum PrometheusBootstrap {
    /// Request latency buckets in seconds: model-backed requests take seconds to minutes, rule-based ones milliseconds.
    static let latencyBuckets: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]
        .map { .milliseconds(Int64($0 * 1000)) }

    /// A factory recording into a new registry, with `latencyBuckets` for timers (tests use it without bootstrapping).
    package static func factory() -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())
        factory.defaultDurationHistogramBuckets = latencyBuckets
        return factory
    }

    /// Bootstraps the process-wide metrics system with `factory()`; returns what `/metrics` serves.
    package static func bootstrap() -> PrometheusExposition {
        let factory = factory()
        MetricsSystem.bootstrap(factory)
        return PrometheusExposition(registry: factory.registry)
    }
}

/// A registry's metrics in the Prometheus text format.
package struct PrometheusExposition: Sendable {
    package let registry: PrometheusCollectorRegistry

    package init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    package func render() -> [UInt8] { registry.emitToBuffer() }
}
