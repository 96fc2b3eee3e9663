package import Core

/// One item of a conversation kept across nights under its short ref (docs/over-nights.md).
package struct TrackedItem: Sendable, Hashable {
    /// `e1`, `t3`, ...: never reused, never changed.
    package var ref: String
    package var body: ItemBody
    package var status: ItemStatus = .open
    /// The participants for whom it is met (a deadline met by a family, a priority whose request she met, an
    /// invitation she answered). Only a `reopened` verdict citing a message of its night takes someone out again.
    package var metFor: Set<String> = []
    /// A priority message: the last day it matters (an urgent one lapses after it).
    package var until: LocalDate? = nil
    /// Who wrote its row: the app's own rows are never removed.
    package var origin: ItemOrigin = .service
    /// The parent confirmed it in the app (an event): it stays confirmed whatever the chat says.
    package var confirmed = false
    /// The parent closed it in the app (dismissed, completed): no answer re-opens it.
    package var closedInApp = false

    package init(ref: String, body: ItemBody, status: ItemStatus = .open, metFor: Set<String> = [], until: LocalDate? = nil,
                 origin: ItemOrigin = .service, confirmed: Bool = false, closedInApp: Bool = false) {
        self.ref = ref
        self.body = body
        self.status = status
        self.metFor = metFor
        self.until = until
        self.origin = origin
        self.confirmed = confirmed
        self.closedInApp = closedInApp
    }

    /// Open and not closed by the parent: what a night's request shows and an answer may change.
    package var isOpen: Bool { status == .open && !closedInApp }

    /// Whether closing it may remove its row: only a service row nobody acted on.
    var closingRemovesRow: Bool { origin == .service && !confirmed && !closedInApp }
}

package enum ItemStatus: String, Sendable, Hashable, Codable {
    case open
    /// The chat cancelled it or called it off.
    case cancelled
    /// Its day is over (a priority message the answer ended).
    case ended
    /// Dated before today (or a priority past its day): the reconciliation closed it at the night's `now`.
    case lapsed
    /// Every message it rested on was deleted.
    case notBacked = "not_backed"
}

package enum ItemOrigin: String, Sendable, Hashable, Codable {
    /// Written by this service: its row may be removed when the item closes.
    case service
    /// Written by the app itself: its row is never removed.
    case app
}
