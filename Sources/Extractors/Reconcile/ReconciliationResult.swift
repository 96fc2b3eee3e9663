/// What the reconciliation did to one item, for the store (phase 2) and the logs.
package struct ItemChange: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case added
        case updated
        /// Closed for everyone; `removesRow` is false for a row the app wrote or the parent acted on.
        case closed(ItemStatus, removesRow: Bool)
        /// Closed for these participants only.
        case met(for: Set<String>)
        /// Open again for these participants (the chat took back what it said was met).
        case reopened(for: Set<String>)
    }

    package var ref: String
    package var kind: Kind

    package init(ref: String, _ kind: Kind) {
        self.ref = ref
        self.kind = kind
    }
}

/// A part of an answer the reconciliation refused; the rest of the answer is kept.
package struct Refusal: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A ref the conversation never had.
        case unknownRef
        /// A ref that exists but the request did not show (closed, lapsed).
        case notShown
        /// A verdict on, or a new item the same as, an item the parent closed in the app.
        case reopensParentClosed
        /// A new date or time cited by no message of the request the item did not already rest on.
        case unbackedMove
        /// A new item, or a verdict's evidence, citing no message the request carried.
        case notCitedInRequest
        /// A second verdict on one ref.
        case repeatedVerdict
        /// A verdict that does not fit the item's feature.
        case wrongFeature
        /// `met` for someone who is not a participant.
        case unknownParticipant
        /// A new item that is the same as a closed one (cancelled, ended, lapsed) and cites no message it did not
        /// already rest on: a model re-reading the context, not the chat bringing it back.
        case restatesClosed
    }

    package var kind: Kind
    /// The ref, or for a new item its feature and first source.
    package var subject: String
    package var detail: String

    package var description: String { "\(kind.rawValue) \(subject): \(detail)" }
}

/// The new state of a conversation after one night, what changed, and what was refused.
package struct ReconciliationResult: Sendable, Hashable {
    package var state: ConversationState
    package var changes: [ItemChange]
    package var refusals: [Refusal]

    /// How many refusals of each kind (reports and logs count them).
    package var refusalCounts: [Refusal.Kind: Int] {
        refusals.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }
}
