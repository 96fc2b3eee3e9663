
/// What a scan's night cost at list prices: its extraction and the proactive pass's assistant runs (each also in its
/// own `job_runs.estimated_cost_usd`). Unknown, never $0, when any part has no price.
package struct NightCost: Sendable, Codable, Equatable {
    /// Nil when unknown.
    package var usd: Double?
    package var extractionUSD: Double?
    /// Nil when unknown; absent from `breakdown` when no proactive pass ran.
    package var assistantUSD: Double?
    /// Whether a proactive pass ran (`--no-assist` skips it).
    package var assisted: Bool

    enum CodingKeys: String, CodingKey {
        case usd, estimate, assisted
        case extractionUSD = "extraction_usd"
        case assistantUSD = "assistant_usd"
    }

    /// - Parameter assistantUSD: nil when no pass ran; `.some(nil)` when it ran at an unknown price.
    package init(extractionUSD: Double?, assistantUSD: Double??) {
        self.extractionUSD = extractionUSD
        assisted = assistantUSD != nil
        self.assistantUSD = assistantUSD ?? nil
        usd = RunCost.sum(assisted ? [extractionUSD, self.assistantUSD] : [extractionUSD])
    }

    /// "$0.0140" or "unknown".
    package var estimate: String { RunCost.text(usd) }

    /// " (extraction $0.0120 + assistant $0.0020)", or "" without an assistant pass.
    package var breakdown: String {
        assisted ? " (extraction \(RunCost.text(extractionUSD)) + assistant \(RunCost.text(assistantUSD)))" : ""
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        usd = try c.decodeIfPresent(Double.self, forKey: .usd)
        extractionUSD = try c.decodeIfPresent(Double.self, forKey: .extractionUSD)
        assistantUSD = try c.decodeIfPresent(Double.self, forKey: .assistantUSD)
        assisted = try c.decodeIfPresent(Bool.self, forKey: .assisted) ?? false
    }

    /// Every figure written, null when unknown, with `estimate` as text.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(usd, forKey: .usd)
        try c.encode(estimate, forKey: .estimate)
        try c.encode(extractionUSD, forKey: .extractionUSD)
        try c.encode(assistantUSD, forKey: .assistantUSD)
        try c.encode(assisted, forKey: .assisted)
    }
}
