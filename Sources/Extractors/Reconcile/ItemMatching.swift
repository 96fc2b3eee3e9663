/// When a new item of an answer is an item already tracked: a re-mention in other words, a re-post, a model
/// repeating itself, or today's incremental answer restating an item with its change.
enum ItemMatching {
    /// One feature, and: for a priority message the same message; for a decision a shared message and the same
    /// category or mostly the same words, or the same category and mostly the same words; otherwise a shared message
    /// and mostly the same words, or a shared message, another date or time and a word in common (a move restated in
    /// other words), or no shared message but the same date and mostly the same words (a re-mention, a re-post). Two
    /// items of one message and date with unrelated words stay two (a newsletter's fee and its kit list).
    static func same(_ new: ItemBody, _ tracked: ItemBody) -> Bool {
        guard new.feature == tracked.feature else { return false }
        if case .priority(let a) = new, case .priority(let b) = tracked { return a.messageID == b.messageID }
        let shared = !Set(new.sources).isDisjoint(with: tracked.sources)
        let similar = similarWords(new.words, tracked.words)
        if case .decision(let a) = new, case .decision(let b) = tracked {
            return (shared && (similar || a.category == b.category)) || (a.category == b.category && similar)
        }
        let moved = new.keyDate != tracked.keyDate || new.keyTime != tracked.keyTime
        if shared { return similar || (moved && commonWord(new.words, tracked.words)) }
        return new.keyDate == tracked.keyDate && similar
    }

    /// Of the items `new` is the same as, the closest: the same messages first, then the same date and time, then
    /// the most words in common (two items of one message: the one it restates, not its neighbour).
    static func best(_ new: ItemBody, among items: [TrackedItem]) -> TrackedItem? {
        func rank(_ item: TrackedItem) -> (Int, Int, Double) {
            let body = item.body
            return (Set(body.sources) == Set(new.sources) ? 1 : 0,
                    body.keyDate == new.keyDate && body.keyTime == new.keyTime ? 1 : 0,
                    ItemIdentity.jaccard(Set(FieldWords.content(body.words)), Set(FieldWords.content(new.words))))
        }
        return items.filter { same(new, $0.body) }.max { rank($0) < rank($1) }
    }

    static func commonWord(_ a: String, _ b: String) -> Bool {
        !Set(FieldWords.content(a)).isDisjoint(with: FieldWords.content(b))
    }

    /// Content words overlapping by half (Jaccard ≥ 0.5), or all of the shorter's in the longer.
    static func similarWords(_ a: String, _ b: String) -> Bool {
        let x = Set(FieldWords.content(a)), y = Set(FieldWords.content(b))
        guard !x.isEmpty, !y.isEmpty else { return x.isEmpty && y.isEmpty }
        return ItemIdentity.jaccard(x, y) >= 0.5 || x.isSubset(of: y) || y.isSubset(of: x)
    }
}
