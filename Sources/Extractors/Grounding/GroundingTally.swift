
/// How one feature's items were grounded by the evidence check: kept because the quote is verbatim in a cited
/// message (`exact`), kept because it aligns with one though not verbatim, or a priority message kept by its own
/// citation (`aligned`), moved to the message the quote is in (`recited`), or dropped (`dropped`: the quote is in
/// no message, or every cited id is unknown). The field check then drops an item whose main text the cited messages do
/// not back (`unbacked`) and clears a single field they do not back (`cleared`: a time or place nobody wrote). A prompt that makes the model misquote more moves items from `exact`
/// to `aligned` before it costs recall.
package struct GroundingTally: Sendable, Hashable, Codable {
    package var exact = 0
    package var aligned = 0
    package var recited = 0
    package var dropped = 0
    /// Of `dropped`: items whose only evidence addresses the assistant or its rules (`PromptInjection`).
    package var injections = 0
    package var unbacked = 0
    package var cleared = 0
    /// Of `dropped`: items whose date lies outside the date policy's window (`DecodeContext.dropsOutsideWindow`).
    package var dates = 0

    package init(exact: Int = 0, aligned: Int = 0, recited: Int = 0, dropped: Int = 0, injections: Int = 0, unbacked: Int = 0,
                cleared: Int = 0, dates: Int = 0) {
        self.exact = exact
        self.aligned = aligned
        self.recited = recited
        self.dropped = dropped
        self.injections = injections
        self.unbacked = unbacked
        self.cleared = cleared
        self.dates = dates
    }

    package static func += (a: inout Self, b: Self) { a = a + b }

    enum CodingKeys: String, CodingKey { case exact, aligned, recited, dropped, injections }

    /// Tallies stored before `injections` existed read it as zero.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(exact: try c.decode(Int.self, forKey: .exact), aligned: try c.decode(Int.self, forKey: .aligned),
                  recited: try c.decode(Int.self, forKey: .recited), dropped: try c.decode(Int.self, forKey: .dropped),
                  injections: try c.decodeIfPresent(Int.self, forKey: .injections) ?? 0)
    }

    /// The tally as JSON for `job_runs.item_counts` ("grounding").
    package var json: [String: Int] {
        ["exact": exact, "aligned": aligned, "recited": recited, "dropped": dropped, "injections": injections, "unbacked": unbacked,
         "cleared": cleared, "dates": dates]
    }

    package static func + (a: Self, b: Self) -> Self {
        Self(exact: a.exact + b.exact, aligned: a.aligned + b.aligned, recited: a.recited + b.recited, dropped: a.dropped + b.dropped,
             injections: a.injections + b.injections, unbacked: a.unbacked + b.unbacked, cleared: a.cleared + b.cleared,
             dates: a.dates + b.dates)
    }
}
