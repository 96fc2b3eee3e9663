/// What the evidence check and the date policy did to one feature's items over an eval run: items moved to the
/// message their evidence is in, items dropped because their evidence is nowhere, and dates kept from the model
/// because code could not read the whole phrase.
public struct GroundingCounts: Sendable, Hashable, Codable {
    public var recited = 0
    public var dropped = 0
    public var datesUnconfirmed = 0

    public init(recited: Int = 0, dropped: Int = 0, datesUnconfirmed: Int = 0) {
        self.recited = recited
        self.dropped = dropped
        self.datesUnconfirmed = datesUnconfirmed
    }

    public var isZero: Bool { recited == 0 && dropped == 0 && datesUnconfirmed == 0 }

    public static func + (a: Self, b: Self) -> Self {
        Self(recited: a.recited + b.recited, dropped: a.dropped + b.dropped, datesUnconfirmed: a.datesUnconfirmed + b.datesUnconfirmed)
    }

    enum CodingKeys: String, CodingKey {
        case recited, dropped
        case datesUnconfirmed = "dates_unconfirmed"
    }
}
