import Core

extension DecodeContext {
    /// The first two checks of every item that cites messages: the ids under `source_message_ids` exist (`sources`)
    /// and the item's `evidence` is in one of them (`ground`). Nil when the item is dropped (with a note).
    mutating func grounded(_ item: JSONValue, label: String) -> (sources: [String], holder: String)? {
        guard let cited = sources(item["source_message_ids"], item: label) else { return nil }
        let before = tally
        let grounded = ground(item["evidence"]?.stringValue, sources: cited, item: label)
        return notInjection(grounded, tallyBefore: before, item: label)
    }

    /// `grounded` unless every message it rests on (the cited ones and the one holding the evidence) addresses the
    /// assistant or its rules (`PromptInjection`): such an item is dropped, counted (`.injection`, the tally's
    /// `dropped` and `injections` instead of how it was grounded) and so never written nor reminded of.
    mutating func notInjection(_ grounded: (sources: [String], holder: String)?, tallyBefore: GroundingTally, item: String)
        -> (sources: [String], holder: String)? {
        guard let grounded else { return nil }
        let resting = Set(grounded.sources + [grounded.holder])
        guard resting.allSatisfy({ input.message($0).map { PromptInjection.addressesAssistant($0.text) } ?? false }) else { return grounded }
        tally = tallyBefore
        tally.dropped += 1
        tally.injections += 1
        let alias = window.alias(ofMessage: grounded.holder) ?? grounded.holder
        note(.injection, "dropped \(item): its only evidence is \(alias), a message addressing the assistant or its rules, not the chat")
        return nil
    }
}

extension DecodeContext {
    /// A required date `field` (the item is dropped with a note when it is null or not a real date), read against the
    /// item's `date_phrase` by `resolve`. Returns code's reading and the phrase; nil (dropped, noted) when code reads the
    /// phrase as a day before the message that says it (the item is past, not coming).
    mutating func requiredDate(_ item: JSONValue, field: String, grounded: (sources: [String], holder: String), label: String,
                               deadline: Bool = false) -> (resolved: ResolvedDate, phrase: String?)? {
        guard let modelDate = date(item[field], field: field, item: label) ?? nil else { return nil }
        let phrase = item["date_phrase"]?.nonEmptyString
        let resolved = resolve(phrase: phrase, modelDate: modelDate, sources: grounded.sources, evidenceMessage: grounded.holder,
                               item: label, deadline: deadline)
        if dropsOutsideWindow(resolved, phrase: phrase, label: label) { return nil }
        return (resolved, phrase)
    }

    /// True (noted and counted as a drop: `dropped`, and `dates` of the tally) when the item's date lies outside the
    /// date policy's window (`ResolvedDate.isOutsideWindow`): code read the phrase as a day before the message that
    /// says it ("Tuesday 3/3" written in November is the past March 3), or the date, phrase or no phrase, is before
    /// the message or more than a year after it (1900, 2200, 9999-12-31). Never a failed conversation.
    /// Every date an item holds (an RSVP's event and reply-by dates, a decision's deadline).
    static func dates(of body: ItemBody) -> [LocalDate] {
        switch body {
        case .event(let item): [item.date]
        case .decision(let item): item.deadline.map { [$0] } ?? []
        case .rsvp(let item): [item.eventDate] + (item.deadline.map { [$0] } ?? [])
        case .deadline(let item): [item.deadline]
        case .priority: []
        }
    }

    mutating func dropsOutsideWindow(_ resolved: ResolvedDate, phrase: String?, label: String) -> Bool {
        guard resolved.isPast || resolved.isOutsideWindow else { return false }
        // A changed item keeping a date of the known item it changes (an RSVP answered after its reply-by date): that
        // date was checked against its own message when the item was first read.
        if let known = currentItem, Self.dates(of: known).contains(resolved.date) { return false }
        tally.dropped += 1
        tally.dates += 1
        if resolved.isPast {
            note(.dropped, "dropped \(label): '\((phrase ?? "").prefix(60))' is \(resolved.date.iso), before the message that says it: past")
        } else {
            note(.dropped, "dropped \(label): its date \(resolved.date.iso) is outside the date window (the message's day, "
                 + "\(resolved.anchorDay?.iso ?? "unknown"), to \(Self.plausibleDays) days after it)")
        }
        return true
    }
}
