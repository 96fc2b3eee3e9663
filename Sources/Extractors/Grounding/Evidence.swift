import Foundation

/// Matching a model's quoted words (evidence, date phrases) against message text, tolerant of what copying
/// changes: case, runs of whitespace, straight versus curly quotes and dashes, and punctuation at the ends.
enum Evidence {
    /// Lower-cased, quotes and dashes folded, whitespace collapsed, trimmed.
    static func normalize(_ text: String) -> String {
        if let ascii = normalizeASCII(text) { return ascii }
        return normalizeUnicode(text)
    }

    /// `normalize` for text that is all ASCII, byte by byte; nil when the text has any other character. ASCII is
    /// already in canonical form, each byte is one character (CR LF is two whitespace bytes, collapsed the same), and
    /// its whitespace is exactly tab, LF, VT, FF, CR and space, so this gives what `normalizeUnicode` gives without
    /// Foundation's canonical composition, which dominates the check's cost.
    static func normalizeASCII(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(byte + 0x20)
            case UInt8(ascii: "`"): out.append(UInt8(ascii: "'"))
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `normalize` for any text: canonical composition, lower-casing and folding character by character.
    static func normalizeUnicode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for character in text.precomposedStringWithCanonicalMapping.lowercased() {
            if character.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" "); pendingSpace = false }
            switch character {
            case "\u{2018}", "\u{2019}", "\u{201A}", "\u{201B}", "\u{2032}", "`", "\u{00B4}": out.append("'")
            case "\u{201C}", "\u{201D}", "\u{201E}", "\u{201F}", "\u{2033}": out.append("\"")
            case "\u{2013}", "\u{2014}", "\u{2212}": out.append("-")
            case "\u{2026}": out.append("...")
            default: out.append(character)
            }
        }
        return out
    }

    /// The evidence as it is compared: normalised, without quotes or sentence punctuation around it.
    static func needle(_ evidence: String) -> String {
        normalize(evidence).trimmingCharacters(in: CharacterSet(charactersIn: "\"'.,;:!?()[]- "))
    }

    /// The first message of `messages` that holds `phrase`; when none holds it whole, the one holding the longest
    /// tail of it ("on tomorrow" → "tomorrow"), so a paraphrased lead word does not move the date to another message.
    static func messageHolding(phrase: String, in messages: [InputMessage]) -> InputMessage? {
        let words = needle(phrase).split(separator: " ")
        guard !words.isEmpty else { return nil }
        let texts = messages.map { normalize($0.text) }
        for start in words.indices.prefix(3) {
            let tail = words[start...].joined(separator: " ")
            if let index = texts.firstIndex(where: { $0.contains(tail) }) { return messages[index] }
        }
        return nil
    }
}
