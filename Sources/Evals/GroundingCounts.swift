/// What the evidence check and the date policy did to one feature's items over an eval run: items moved to the
/// message their evidence is in, items dropped because their evidence is nowhere, items dropped because every id
/// they cite is unknown, other drops (no message cited, an unreadable date), and dates kept from the model because
/// code could not read the whole phrase.
public struct GroundingCounts: Sendable, Hashable, Codable {
    public var recited = 0
    public var dropped = 0
    public var datesUnconfirmed = 0
    /// Items dropped because every message id they cite is not in the conversation.
    public var droppedUnknownIDs = 0
    /// Items dropped for another reason: they cite no message, or a date is not a real date.
    public var droppedOther = 0

    public init(recited: Int = 0, dropped: Int = 0, datesUnconfirmed: Int = 0, droppedUnknownIDs: Int = 0, droppedOther: Int = 0) {
        self.recited = recited
        self.dropped = dropped
        self.datesUnconfirmed = datesUnconfirmed
        self.droppedUnknownIDs = droppedUnknownIDs
        self.droppedOther = droppedOther
    }

    public var isZero: Bool { recited == 0 && dropped == 0 && datesUnconfirmed == 0 && droppedUnknownIDs == 0 && droppedOther == 0 }

    /// Items dropped for any reason.
    public var totalDropped: Int { dropped + droppedUnknownIDs + droppedOther }

    public static func + (a: Self, b: Self) -> Self {
        Self(recited: a.recited + b.recited, dropped: a.dropped + b.dropped, datesUnconfirmed: a.datesUnconfirmed + b.datesUnconfirmed,
             droppedUnknownIDs: a.droppedUnknownIDs + b.droppedUnknownIDs, droppedOther: a.droppedOther + b.droppedOther)
    }

    enum CodingKeys: String, CodingKey {
        case recited, dropped
        case datesUnconfirmed = "dates_unconfirmed"
        case droppedUnknownIDs = "dropped_unknown_ids"
        case droppedOther = "dropped_other"
    }

    /// Reports written before the unknown-id and other drops were counted read them as zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recited = try container.decode(Int.self, forKey: .recited)
        dropped = try container.decode(Int.self, forKey: .dropped)
        datesUnconfirmed = try container.decode(Int.self, forKey: .datesUnconfirmed)
        droppedUnknownIDs = try container.decodeIfPresent(Int.self, forKey: .droppedUnknownIDs) ?? 0
        droppedOther = try container.decodeIfPresent(Int.self, forKey: .droppedOther) ?? 0
    }
}
