import Core

/// Which items of a feature are one: the base key (first source and date or category) says where an item rests, but
/// one message can hold two items there (a newsletter's fee and its kit list, two families' dishes for one potluck).
/// Two items with one base key are the same item only when they rest on mostly the same messages and say mostly the
/// same words, or say nearly the same words (a model repeating itself across overlapping windows); otherwise both
/// are kept, and the later one's key gets a `variant`: a hash of its content words, so it has rows of its own.
enum ItemIdentity {
    /// Adds `item` to `items` unless an item with its base key is the same item; a second, distinct item of one base
    /// key gets its `variant`.
    static func merge<Item>(_ item: Item, into items: inout [Item], base: (Item) -> String, text: (Item) -> String,
                            sources: (Item) -> [String], variant: WritableKeyPath<Item, String?>) {
        let key = base(item)
        let family = items.filter { base($0) == key }
        if family.contains(where: { same(text($0), sources($0), text(item), sources(item)) }) { return }
        var item = item
        item[keyPath: variant] = family.isEmpty ? nil : fingerprint(text(item))
        items.append(item)
    }

    /// Mostly the same messages (Jaccard ≥ 0.5) and mostly the same words (Jaccard ≥ 0.6), or nearly the same words (≥ 0.8).
    static func same(_ a: String, _ aSources: [String], _ b: String, _ bSources: [String]) -> Bool {
        let words = jaccard(Set(FieldWords.content(a)), Set(FieldWords.content(b)))
        return words >= 0.8 || (words >= 0.6 && jaccard(Set(aSources), Set(bSources)) >= 0.5)
    }

    static func jaccard(_ a: Set<String>, _ b: Set<String>) -> Double {
        let union = a.union(b).count
        return union == 0 ? 1 : Double(a.intersection(b).count) / Double(union)
    }

    /// 8 hex digits of a 32-bit FNV-1a hash (`StableHash`) of the sorted content words: the same wording gives the
    /// same key on every run.
    static func fingerprint(_ text: String) -> String {
        StableHash.hex(StableHash.fnv32(Set(FieldWords.content(text)).sorted().joined(separator: " ")), digits: 8)
    }
}
