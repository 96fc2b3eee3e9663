import JSONKit

extension DecodeContext {
    /// The first two checks of every item that cites messages: the ids under `source_message_ids` exist (`sources`)
    /// and the item's `evidence` is in one of them (`ground`). Nil when the item is dropped (with a note).
    mutating func grounded(_ item: JSONValue, label: String) -> (sources: [String], holder: String)? {
        guard let cited = sources(item["source_message_ids"], item: label) else { return nil }
        return ground(item["evidence"]?.stringValue, sources: cited, item: label)
    }
}

extension DecodeContext {
    /// A required date `field` (the item is dropped with a note when it is null or not a real date), read against the
    /// item's `date_phrase` by `resolve`. Returns code's reading and the phrase.
    mutating func requiredDate(_ item: JSONValue, field: String, grounded: (sources: [String], holder: String), label: String,
                               deadline: Bool = false) -> (resolved: ResolvedDate, phrase: String?)? {
        guard let modelDate = date(item[field], field: field, item: label) ?? nil else { return nil }
        let phrase = item["date_phrase"]?.nonEmptyString
        let resolved = resolve(phrase: phrase, modelDate: modelDate, sources: grounded.sources, evidenceMessage: grounded.holder,
                               item: label, deadline: deadline)
        return (resolved, phrase)
    }
}
