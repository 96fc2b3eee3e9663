/// What `/healthz` or `/readyz` answers: 200 with "ok", or 503 with the reasons, one a line.
public struct ProbeAnswer: Sendable, Equatable {
    public let ok: Bool
    public let text: String

    public init(ok: Bool, reasons: [String]) {
        self.ok = ok
        text = ok ? "ok\n" : reasons.map { $0 + "\n" }.joined()
    }
}
