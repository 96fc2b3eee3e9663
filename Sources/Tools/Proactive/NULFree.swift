import Core

/// Postgres cannot store U+0000 in text or jsonb; titles and places come from messages (untrusted), so findings
/// drop it before they are written.
extension String {
    var nulFree: String { contains("\u{0}") ? replacingOccurrences(of: "\u{0}", with: "") : self }
}

extension JSONValue {
    var nulFree: JSONValue {
        switch self {
        case .string(let s): .string(s.nulFree)
        case .array(let items): .array(items.map(\.nulFree))
        case .object(let object): .object(JSONObject(object.map { ($0.key.nulFree, $0.value.nulFree) }))
        default: self
        }
    }
}
