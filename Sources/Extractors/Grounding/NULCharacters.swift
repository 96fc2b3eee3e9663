package import Core

extension JSONValue {
    /// The value with every U+0000 removed from its strings. Postgres text and jsonb cannot store U+0000, so a model
    /// answer carrying one (echoed from a hostile message, or a glitch) would otherwise fail its conversation or run
    /// every time it is retried.
    package var withoutNULs: JSONValue {
        switch self {
        case .string(let text): .string(text.withoutNULs)
        case .array(let items): .array(items.map(\.withoutNULs))
        case .object(let object): .object(JSONObject(object.map { ($0.key.withoutNULs, $0.value.withoutNULs) }))
        default: self
        }
    }
}

extension String {
    /// The text without U+0000, which Postgres cannot store.
    package var withoutNULs: String {
        contains("\u{0}") ? String(unicodeScalars.filter { $0 != "\u{0}" }) : self
    }
}
