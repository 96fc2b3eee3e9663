import Core

/// The deletion rule (docs/over-nights.md phase 2 point 3): a message deleted in the app no longer backs anything.
extension Reconciliation {
    /// Drops `deleted` from every item's sources (and an RSVP's answers given in them). An open item left with no
    /// message closes as `notBacked` (its row removed only when nobody acted on it, `closingRemovesRow`); one another
    /// message still backs, the night's answer included (it runs after the verdicts and new items: a deleted message
    /// re-posted and cited keeps its item), stays open, updated. Closed items only lose the ids, with no change to record.
    static func dropDeleted(_ deleted: Set<String>, from state: inout ConversationState, changes: inout [ItemChange]) {
        guard !deleted.isEmpty else { return }
        for item in state.items {
            let left = item.body.sources.filter { !deleted.contains($0) }
            var body = item.body.with(sources: left)
            if case .rsvp(var rsvp) = body {
                rsvp.responses.removeAll { deleted.contains($0.messageID) }
                body = .rsvp(rsvp)
            }
            guard body != item.body || left.count < item.body.sources.count else { continue }
            state.update(item.ref) { $0.body = body }
            guard item.isOpen else { continue }
            if left.isEmpty {
                state.update(item.ref) { $0.status = .notBacked }
                changes.append(ItemChange(ref: item.ref, .closed(.notBacked, removesRow: item.closingRemovesRow)))
            } else if !changes.contains(ItemChange(ref: item.ref, .updated)) {
                changes.append(ItemChange(ref: item.ref, .updated))
            }
        }
    }
}
