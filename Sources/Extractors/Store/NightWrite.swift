import Core
import Foundation
import Postgres

/// One night of a conversation as the store writes it (docs/over-nights.md, phase 2 point 2): the stored state, the
/// night's request and answer through `Reconciliation.apply`, and what its rows must become. Scan, extract, batch
/// collect and the worker all write through here (`ExtractionStore.write`), so the same chat and answers end in the same
/// rows.
struct NightWrite {
    /// The state after the night.
    var state: ConversationState
    var refusals: [Refusal]
    /// The refs whose rows change tonight: open ones are upserted, closed ones closed (`closing`).
    var touched: [String]
    /// How each closed ref's rows close: the reason written and whether a row nobody acted on is removed.
    var closing: [String: (reason: String, removesRow: Bool)] = [:]
    /// Reasons saved with closed items when not their status (`superseded`).
    var closedReasons: [String: String] = [:]

    /// Reconciles `extraction` with the stored state. `replace` (an `extract` over the whole chat): the night starts
    /// from a state without the requested features' open service items nobody acted on, so the state is what the
    /// night makes; a new item that is one of those keeps its ref (its rows are updated, not re-added), and the
    /// others are superseded (their rows removed as a replace always did).
    static func reconcile(_ extraction: Extraction, input: ConversationInput, features: Set<ExtractionFeature>, replace: Bool,
                          stored: ConversationState, now: Date) -> NightWrite {
        var start = stored
        var dropped: [TrackedItem] = []
        if replace {
            dropped = stored.items.filter { features.contains($0.body.feature) && $0.isOpen && $0.closingRemovesRow }
            let refs = Set(dropped.map(\.ref))
            start.remove { refs.contains($0.ref) }
        }
        var request = NightRequest(
            now: now, timeZone: input.timeZone,
            // The refs a request listed: each feature's open items up to the cap (`shownItems`). Per feature, so a
            // combined request's smaller cap (40 over all features) is not enforced here: over 40 open items a verdict
            // on one it did not list is kept rather than refused.
            shownRefs: Set(features.flatMap { input.state.shownItems(features: [$0]) }.map(\.ref)).intersection(start.openItems.map(\.ref)),
            shownMessages: Set(input.messages.map(\.id)), participants: Set(input.participants.map(\.id)))
        request.deletedMessages = input.deletedMessageIDs
        let answer = NightAnswer(extraction: extraction, input: input)
        let result = Reconciliation.apply(start, request: request, answer: answer)

        var night = NightWrite(state: result.state, refusals: result.refusals, touched: [])
        var renamed: [String: String] = [:]
        for change in result.changes {
            guard case .added = change.kind, let item = night.state[change.ref],
                  let old = ItemMatching.best(item.body, among: dropped.filter { dropped in !renamed.values.contains(dropped.ref) })
            else { continue }
            renamed[change.ref] = old.ref
            night.state.update(change.ref) { $0.ref = old.ref }
        }
        for change in result.changes {
            let ref = renamed[change.ref] ?? change.ref
            if !night.touched.contains(ref) { night.touched.append(ref) }
            if case .closed(let status, let removesRow) = change.kind {
                night.closing[ref] = (status.rawValue, removesRow)
            }
        }
        for old in dropped where !renamed.values.contains(old.ref) {
            var closed = old
            closed.status = .cancelled
            night.state.adopt(closed)
            night.touched.append(old.ref)
            night.closing[old.ref] = ("superseded", true)
            night.closedReasons[old.ref] = "superseded"
        }
        return night
    }

    /// Closed items by feature (the write summary's `closed`).
    var closedByFeature: [String: Int] {
        closing.keys.reduce(into: [:]) { counts, ref in
            if let feature = state[ref]?.body.feature { counts[feature.rawValue, default: 0] += 1 }
        }
    }
}
