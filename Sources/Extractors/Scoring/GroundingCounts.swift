/// How the evidence check and the date policy treated one feature's items over an eval run: kept because the quote
/// is verbatim in a cited message (`exact`), kept because it aligns with one though not verbatim (`aligned`), moved
/// to the message the quote is in (`recited`), dropped because the quote is in no message (`dropped`), because every
/// id it cites is unknown (`droppedUnknownIDs`), or for another reason (`droppedOther`: it cites no message, a date
/// is not a real date), and dates kept from the model because code could not read the whole phrase. A prompt that
/// makes the model misquote more shows here (exact falls, aligned rises) before it costs recall.
package struct GroundingCounts: Sendable, Hashable, Codable {
    package var exact = 0
    package var aligned = 0
    package var recited = 0
    package var dropped = 0
    package var datesUnconfirmed = 0
    /// Items dropped because every message id they cite is not in the conversation.
    package var droppedUnknownIDs = 0
    /// Items dropped for another reason: they cite no message, or a date is not a real date.
    package var droppedOther = 0
    /// Items dropped because their only evidence is a message addressing the assistant or its rules.
    package var droppedInjection = 0
    /// Items dropped because their main text (title, task, decision, event) shares nothing with the messages cited.
    package var droppedUnbacked = 0
    /// Single fields (a time, a location) cleared because no cited message says them; their items were kept.
    package var fieldsCleared = 0

    package init(exact: Int = 0, aligned: Int = 0, recited: Int = 0, dropped: Int = 0, datesUnconfirmed: Int = 0,
                droppedUnknownIDs: Int = 0, droppedOther: Int = 0, droppedInjection: Int = 0, droppedUnbacked: Int = 0,
                fieldsCleared: Int = 0) {
        self.exact = exact
        self.aligned = aligned
        self.recited = recited
        self.dropped = dropped
        self.datesUnconfirmed = datesUnconfirmed
        self.droppedUnknownIDs = droppedUnknownIDs
        self.droppedOther = droppedOther
        self.droppedInjection = droppedInjection
        self.droppedUnbacked = droppedUnbacked
        self.fieldsCleared = fieldsCleared
    }

    /// Items dropped for any reason.
    package var totalDropped: Int { dropped + droppedUnknownIDs + droppedOther + droppedInjection + droppedUnbacked }

    /// Every item was kept on a verbatim quote from a message it cites, with code's own date.
    package var isCorrectionFree: Bool { aligned == 0 && recited == 0 && totalDropped == 0 && datesUnconfirmed == 0 && fieldsCleared == 0 }

    package var isZero: Bool { exact == 0 && isCorrectionFree }

    package static func + (a: Self, b: Self) -> Self {
        Self(exact: a.exact + b.exact, aligned: a.aligned + b.aligned, recited: a.recited + b.recited,
             dropped: a.dropped + b.dropped, datesUnconfirmed: a.datesUnconfirmed + b.datesUnconfirmed,
             droppedUnknownIDs: a.droppedUnknownIDs + b.droppedUnknownIDs, droppedOther: a.droppedOther + b.droppedOther,
             droppedInjection: a.droppedInjection + b.droppedInjection,
             droppedUnbacked: a.droppedUnbacked + b.droppedUnbacked, fieldsCleared: a.fieldsCleared + b.fieldsCleared)
    }

    /// "exact 12, aligned 3, re-cited 1, dropped 2 (no evidence 1, unknown ids 1, other 0), model dates kept 0"; the
    /// reasons are given only when something was dropped (injections only when there were some).
    package var line: String {
        let injections = droppedInjection == 0 ? "" : ", injection \(droppedInjection)"
        let unbacked = droppedUnbacked == 0 ? "" : ", unbacked \(droppedUnbacked)"
        let reasons = totalDropped == 0 ? "" : " (no evidence \(dropped), unknown ids \(droppedUnknownIDs)\(injections), other \(droppedOther)\(unbacked))"
        let cleared = fieldsCleared == 0 ? "" : ", fields cleared \(fieldsCleared)"
        return "exact \(exact), aligned \(aligned), re-cited \(recited), dropped \(totalDropped)\(reasons), model dates kept \(datesUnconfirmed)\(cleared)"
    }

    enum CodingKeys: String, CodingKey {
        case exact, aligned, recited, dropped
        case datesUnconfirmed = "dates_unconfirmed"
        case droppedUnknownIDs = "dropped_unknown_ids"
        case droppedOther = "dropped_other"
        case droppedInjection = "dropped_injection"
        case droppedUnbacked = "dropped_unbacked"
        case fieldsCleared = "fields_cleared"
    }

    /// Reports written before a count existed read it as zero.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        self.init(exact: try count(.exact), aligned: try count(.aligned), recited: try count(.recited),
                  dropped: try count(.dropped), datesUnconfirmed: try count(.datesUnconfirmed),
                  droppedUnknownIDs: try count(.droppedUnknownIDs), droppedOther: try count(.droppedOther),
                  droppedInjection: try count(.droppedInjection),
                  droppedUnbacked: try count(.droppedUnbacked), fieldsCleared: try count(.fieldsCleared))
    }
}
