import Core

/// What a night's request shows of a conversation's open items (docs/over-nights.md, "What a night's request
/// carries"): the most recent open items, one compact line each, with the window's aliases in place of ids.
extension ConversationState {
    /// At most this many open items go in one request (the most recent); an item beyond it cannot change that night.
    static let shownCap = 40

    /// The open items a request for `features` lists (all features when nil): the `shownCap` most recent, oldest first.
    func shownItems(features: Set<ExtractionFeature>? = nil) -> [TrackedItem] {
        Array(openItems.filter { features?.contains($0.body.feature) ?? true }.suffix(Self.shownCap))
    }

    /// One line per item: `e1 event "Emma's party" 2026-12-12 14:00 @Jump Zone`, `t1 deadline "Slip and $15" 2026-12-11
    /// met for: p3`, `r1 rsvp "Emma's party" 2026-12-12 reply by 2026-12-09 answered: p1 yes`, `p1 priority "Slip and $15 due Friday" m4 high`.
    /// `participant` and `message` give the window's alias of an id (nil: not in the window, and a message then goes
    /// unnamed; a participant keeps her id). Words are JSON strings with angle brackets escaped, as message texts are.
    package static func openItemsBlock(_ items: [TrackedItem], participant: (String) -> String?,
                                       message: (String) -> String?) -> String {
        items.map { item in
            var parts = [item.ref, kind(item.body)]
            let words = item.body.words
            if !words.isEmpty { parts.append(MessageWindow.escapeAngles(JSONValue.string(words).serialized())) }
            if let date = item.body.keyDate { parts.append(date.iso) }
            if let time = item.body.keyTime { parts.append(time.iso) }
            switch item.body {
            case .event(let event):
                if let place = event.location, !place.isEmpty { parts.append("@" + MessageWindow.escapeAngles(JSONValue.string(place).serialized())) }
            case .rsvp(let rsvp):
                if let by = rsvp.deadline { parts.append("reply by \(by.iso)") }
                if !rsvp.responses.isEmpty {
                    parts.append("answered: " + rsvp.responses.map { "\(participant($0.participantID) ?? $0.participantID) \($0.response)" }
                        .joined(separator: ", "))
                }
            case .priority(let priority):
                // Its reason, since the message it flags may be gone from the window: the model must know what it was
                // to say it was met or its day is over.
                if !priority.reason.isEmpty { parts.append(MessageWindow.escapeAngles(JSONValue.string(priority.reason).serialized())) }
                if let alias = message(priority.messageID) { parts.append(alias) }
                parts.append(priority.priority)
            case .decision, .deadline: break
            }
            if !item.metFor.isEmpty {
                parts.append("met for: " + item.metFor.map { participant($0) ?? $0 }.sorted().joined(separator: " "))
            }
            return parts.joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// The item's kind in a request line: short, one token.
    static func kind(_ body: ItemBody) -> String {
        switch body {
        case .event: "event"
        case .decision: "decision"
        case .rsvp: "rsvp"
        case .deadline: "deadline"
        case .priority: "priority"
        }
    }
}
