/// RFC 6901 JSON pointers as `$ref` fragments use them, so refs into openapi.json and `$defs` resolve.
struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    var tokens: [String]

    static let root = JSONPointer(tokens: [])

    init(tokens: [String]) { self.tokens = tokens }

    /// Parses a pointer such as `/components/schemas/a~1b` (already percent-decoded); nil when malformed.
    init?(parsing text: String) {
        if text.isEmpty { self.tokens = []; return }
        guard text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let token = JSONPointer.unescape(raw) else { return nil }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }
    func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// The pointer text, escaped (`~0`, `~1`), e.g. `/properties/a~1b`.
    var description: String {
        tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }

    /// The value at this pointer inside `document`, or nil when a step does not exist.
    func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = JSONPointer.arrayIndex(token), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    private static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy(\.isASCII), token.allSatisfy(\.isNumber) else { return nil }
        if token.count > 1, token.hasPrefix("0") { return nil }
        return Int(token)
    }

    private static func unescape(_ raw: Substring) -> String? {
        var out = ""
        var iterator = raw.makeIterator()
        while let ch = iterator.next() {
            guard ch == "~" else { out.append(ch); continue }
            switch iterator.next() {
            case "0": out.append("~")
            case "1": out.append("/")
            default: return nil
            }
        }
        return out
    }
}

/// Decodes `%XX` escapes in a URI fragment (`#/$defs/percent%25field`); nil when an escape is malformed.
func percentDecoded(_ text: String) -> String? {
    guard text.contains("%") else { return text }
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
        guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
        guard utf8.count >= 2, let high = hexDigit(utf8.popFirst()!), let low = hexDigit(utf8.popFirst()!) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
