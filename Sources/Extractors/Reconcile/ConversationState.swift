import Core
package import Foundation

/// Every item a conversation has had across nights, open or closed, in the order they were first seen.
package struct ConversationState: Sendable, Hashable {
    package private(set) var items: [TrackedItem] = []
    /// The last number given per ref letter, so refs are never reused even when items are closed.
    private var counters: [String: Int] = [:]

    package init() {}

    /// A state holding `items` (read back from storage), their refs kept as they are.
    package init(items: [TrackedItem]) {
        for item in items { adopt(item) }
    }

    package subscript(ref: String) -> TrackedItem? {
        items.first { $0.ref == ref }
    }

    /// The items a night's request shows: open, and not closed by the parent.
    package var openItems: [TrackedItem] { items.filter(\.isOpen) }

    /// Adds `body` under a new ref and returns the ref.
    mutating func add(_ body: ItemBody, until: LocalDate? = nil) -> String {
        let letter = body.refLetter
        let number = (counters[letter] ?? 0) + 1
        counters[letter] = number
        let ref = "\(letter)\(number)"
        items.append(TrackedItem(ref: ref, body: body, until: until))
        return ref
    }

    /// Keeps a stored item under its own ref, the counter moved past it.
    mutating func adopt(_ item: TrackedItem) {
        if let number = Int(item.ref.drop { $0.isLetter }) {
            let letter = String(item.ref.prefix { $0.isLetter })
            counters[letter] = max(counters[letter] ?? 0, number)
        }
        items.append(item)
    }

    /// Drops items, the ref counters kept: a dropped item's ref is never given to another item.
    mutating func remove(where drop: (TrackedItem) -> Bool) {
        items.removeAll(where: drop)
    }

    mutating func update(_ ref: String, _ change: (inout TrackedItem) -> Void) {
        guard let index = items.firstIndex(where: { $0.ref == ref }) else { return }
        change(&items[index])
    }

    /// What the app shows `user` at `now`: open items not met for her, none dated before today (in `timeZone`), no
    /// priority message past its day. Each feature's items in the order first seen.
    package func view(for user: String, now: Date, timeZone: TimeZone) -> Extraction {
        let today = LocalDate(now, in: timeZone)
        return Extraction(items.filter { item in
            item.isOpen && !item.metFor.contains(user)
                && (item.body.keyDate.map { $0 >= today } ?? true)
                && (item.until.map { $0 >= today } ?? true)
        }.map(\.body))
    }

    /// The compact open-items block of a night's request, ids as stored (a request shows the window's aliases:
    /// `openItemsBlock(_:participant:message:)`, docs/over-nights.md).
    package func openItemsBlock() -> String {
        Self.openItemsBlock(shownItems(), participant: { _ in nil }, message: { _ in nil })
    }
}
