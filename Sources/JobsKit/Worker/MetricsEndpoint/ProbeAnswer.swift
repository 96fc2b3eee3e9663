/// What `/healthz` or `/readyz` answers: 200 with "ok", or 503 with the reasons, one a line.
package struct ProbeAnswer: Sendable, Equatable {
    package let ok: Bool
    package let text: String

    package init(ok: Bool, reasons: [String]) {
        self.ok = ok
        text = ok ? "ok\n" : reasons.map { $0 + "\n" }.joined()
    }
}
