/// How the evidence check and the date policy treated one feature's items over an eval run: kept because the quote
/// is verbatim in a cited message (`exact`), kept because it aligns with one though not verbatim (`aligned`), moved
/// to the message the quote is in (`recited`), dropped because the quote is in no message or every cited id is
/// unknown (`dropped`), and dates kept from the model because code could not read the whole phrase. A prompt that
/// makes the model misquote more shows here (exact falls, aligned rises) before it costs recall.
public struct GroundingCounts: Sendable, Hashable, Codable {
    public var exact = 0
    public var aligned = 0
    public var recited = 0
    public var dropped = 0
    public var datesUnconfirmed = 0

    public init(exact: Int = 0, aligned: Int = 0, recited: Int = 0, dropped: Int = 0, datesUnconfirmed: Int = 0) {
        self.exact = exact
        self.aligned = aligned
        self.recited = recited
        self.dropped = dropped
        self.datesUnconfirmed = datesUnconfirmed
    }

    /// Every item was kept on a verbatim quote from a message it cites, with code's own date.
    public var isCorrectionFree: Bool { aligned == 0 && recited == 0 && dropped == 0 && datesUnconfirmed == 0 }

    public var isZero: Bool { exact == 0 && isCorrectionFree }

    public static func + (a: Self, b: Self) -> Self {
        Self(exact: a.exact + b.exact, aligned: a.aligned + b.aligned, recited: a.recited + b.recited,
             dropped: a.dropped + b.dropped, datesUnconfirmed: a.datesUnconfirmed + b.datesUnconfirmed)
    }

    /// "exact 12, aligned 3, re-cited 1, dropped 0, model dates kept 0".
    public var line: String {
        "exact \(exact), aligned \(aligned), re-cited \(recited), dropped \(dropped), model dates kept \(datesUnconfirmed)"
    }

    enum CodingKeys: String, CodingKey {
        case exact, aligned, recited, dropped
        case datesUnconfirmed = "dates_unconfirmed"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        exact = try c.decodeIfPresent(Int.self, forKey: .exact) ?? 0
        aligned = try c.decodeIfPresent(Int.self, forKey: .aligned) ?? 0
        recited = try c.decodeIfPresent(Int.self, forKey: .recited) ?? 0
        dropped = try c.decodeIfPresent(Int.self, forKey: .dropped) ?? 0
        datesUnconfirmed = try c.decodeIfPresent(Int.self, forKey: .datesUnconfirmed) ?? 0
    }
}
