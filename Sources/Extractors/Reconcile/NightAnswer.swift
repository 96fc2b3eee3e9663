package import Core
package import Foundation

/// What one night's request showed: when it ran, the zone its dates are read in, the open items it listed and the
/// messages it carried. An answer may only speak of those (docs/over-nights.md, "Refusals").
package struct NightRequest: Sendable, Hashable {
    package var now: Date
    package var timeZone: TimeZone
    /// The refs of the open items the request listed.
    package var shownRefs: Set<String>
    /// The ids of the messages it carried: the new ones and their context.
    package var shownMessages: Set<String>
    /// The conversation's participants (a `met` verdict may name only them); empty: not checked.
    package var participants: Set<String>
    /// Messages deleted since the last night: dropped from every item's sources (an item left with none closes).
    package var deletedMessages: Set<String> = []

    package init(now: Date, timeZone: TimeZone, shownRefs: Set<String>, shownMessages: Set<String>, participants: Set<String> = []) {
        self.now = now
        self.timeZone = timeZone
        self.shownRefs = shownRefs
        self.shownMessages = shownMessages
        self.participants = participants
    }

    /// Today in the conversation's zone: nothing dated before it is shown.
    package var today: LocalDate { LocalDate(now, in: timeZone) }
}

/// One night's answer: what it says of known items (by ref), and the new items, as today.
package struct NightAnswer: Sendable, Hashable {
    package var verdicts: [Verdict]
    package var newItems: [NewItem]

    package init(verdicts: [Verdict] = [], newItems: [NewItem] = []) {
        self.verdicts = verdicts
        self.newItems = newItems
    }

    /// The new items of `extraction` and its verdicts on known items (`Extraction.known`).
    package init(extraction: Extraction) {
        self.init(verdicts: extraction.known, newItems: ItemBody.all(in: extraction).map { NewItem($0) })
    }

    /// The night's answer as every path reconciles it (the store's write and `eval` alike): `extraction`'s items and
    /// verdicts, each new priority message given the day it stops mattering from its message in `input`
    /// (`PriorityDays`) when the answer does not say.
    package init(extraction: Extraction, input: ConversationInput) {
        self.init(extraction: extraction)
        PriorityDays.fill(&self, input: input)
    }
}

/// A new item of an answer; a priority message may say the last day it matters.
package struct NewItem: Sendable, Hashable {
    package var body: ItemBody
    package var until: LocalDate?

    package init(_ body: ItemBody, until: LocalDate? = nil) {
        self.body = body
        self.until = until
    }
}

/// What an answer says of one known item. An item it does not name stands.
package struct Verdict: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// Its fields as they now are (moved, re-timed, re-worded, an RSVP answered, a decision changed).
        case changed(ItemBody)
        /// Cancelled, called off: closed for everyone.
        case cancelled
        /// Met for these participants (a deadline handed in, a priority's request met).
        case met(for: Set<String>)
        /// A priority message whose day is over.
        case ended
        /// Due again for these participants after it was met for them: the chat says so ("false alarm, we're going
        /// after all", "the form was the wrong one"); its evidence must cite a message of the request.
        case reopened(for: Set<String>)
    }

    package var ref: String
    package var kind: Kind
    /// The messages saying so (a `changed` item's are its own `sources`).
    package var evidence: [String]

    package init(ref: String, _ kind: Kind, evidence: [String] = []) {
        self.ref = ref
        self.kind = kind
        self.evidence = evidence
    }
}
