/// What the endpoint serves; the worker command supplies the answers, so this module knows nothing of the worker.
package struct MetricsRoutes: Sendable {
    /// Liveness: false makes Kubernetes restart the container.
    package var healthz: @Sendable () async -> ProbeAnswer
    /// Readiness: false takes the pod out of its Service's endpoints.
    package var readyz: @Sendable () async -> ProbeAnswer
    /// The Prometheus text exposition.
    package var metrics: @Sendable () async -> [UInt8]

    package init(healthz: @escaping @Sendable () async -> ProbeAnswer, readyz: @escaping @Sendable () async -> ProbeAnswer,
                metrics: @escaping @Sendable () async -> [UInt8]) {
        self.healthz = healthz
        self.readyz = readyz
        self.metrics = metrics
    }
}
