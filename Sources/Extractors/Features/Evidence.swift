import Foundation

/// Matching a model's quoted words (evidence, date phrases) against message text, tolerant of what copying
/// changes: case, runs of whitespace, straight versus curly quotes and dashes, and punctuation at the ends.
enum Evidence {
    /// Lower-cased, quotes and dashes folded, whitespace collapsed, trimmed.
    static func normalize(_ text: String) -> String {
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
