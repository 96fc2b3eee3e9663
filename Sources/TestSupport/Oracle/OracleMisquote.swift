import Foundation

/// The ways a model copies a chat message inexactly though told to copy it exactly, each written from what models
/// do when they quote: they spell out contractions and chat shorthand, drop emoji, cut a long sentence with an
/// ellipsis, drop or add a small word, and tidy punctuation. One family is applied per quote (`apply`).
package enum OracleMisquote: String, Sendable, CaseIterable {
    /// "I'll" → "I will", "don't" → "do not", "we're" → "we are".
    case contractions
    /// "tmrw" → "tomorrow", "pls" → "please", "u" → "you", "&" → "and", "w/" → "with", "Thurs" → "Thursday", "4pm" → "4:00 PM".
    case shorthand
    /// Emoji and pictographs left out.
    case emoji
    /// A long sentence cut in the middle with "...", a short one cut at the end.
    case ellipsis
    /// One small word left out ("the", "a", "to"...).
    case missingWord
    /// One small word added ("the", "just").
    case extraWord
    /// Punctuation tidied: marks removed, "!!" made ".", quotes straightened.
    case punctuation

    /// `text` with this family's edit, or nil when it does not apply (no contraction to spell out, no emoji...).
    package func apply(_ text: String) -> String? {
        let edited: String
        switch self {
        case .contractions: edited = Self.replacingWords(text, Self.contractionTable)
        case .shorthand: edited = Self.replacingWords(text, Self.shorthandTable, clocks: true)
        case .emoji: edited = Self.withoutEmoji(text)
        case .ellipsis: edited = Self.cut(text)
        case .missingWord: edited = Self.dropSmallWord(text)
        case .extraWord: edited = Self.addSmallWord(text)
        case .punctuation: edited = Self.tidy(text)
        }
        return edited == text || edited.isEmpty ? nil : edited
    }

    /// One family's edit of `text`, trying the families in order from `start` until one applies; `text` itself
    /// when none does.
    package static func misquote(_ text: String, start: Int) -> String {
        for offset in allCases.indices {
            let family = allCases[(start + offset) % allCases.count]
            if let edited = family.apply(text) { return edited }
        }
        return text
    }

    /// The sentences the oracle quotes from a message.
    package static func sentences(_ text: String) -> [String] { OracleWriter.sentences(text) }

    // MARK: Families

    static let contractionTable: [String: String] = [
        "i'll": "I will", "we'll": "we will", "you'll": "you will", "they'll": "they will", "it'll": "it will",
        "don't": "do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot", "won't": "will not",
        "isn't": "is not", "aren't": "are not", "wasn't": "was not", "haven't": "have not", "couldn't": "could not",
        "shouldn't": "should not", "wouldn't": "would not", "we're": "we are", "you're": "you are", "they're": "they are",
        "i'm": "I am", "i've": "I have", "we've": "we have", "it's": "it is", "that's": "that is", "let's": "let us",
        "what's": "what is", "there's": "there is", "i'd": "I would", "we'd": "we would",
        "dont": "do not", "cant": "cannot", "im": "I am", "didnt": "did not", "wont": "will not",
    ]

    static let shorthandTable: [String: String] = [
        "tmrw": "tomorrow", "tmw": "tomorrow", "tmr": "tomorrow", "2moro": "tomorrow", "2morrow": "tomorrow",
        "pls": "please", "plz": "please", "thx": "thanks", "ty": "thank you", "u": "you", "ur": "your", "&": "and",
        "w/": "with", "thurs": "Thursday", "thur": "Thursday", "thu": "Thursday", "weds": "Wednesday", "wed": "Wednesday",
        "tues": "Tuesday", "tue": "Tuesday", "mon": "Monday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday",
        "bday": "birthday", "b4": "before", "lmk": "let me know", "nxt": "next", "wk": "week", "mins": "minutes",
        "hrs": "hours", "appt": "appointment", "pics": "pictures", "ppl": "people", "cuz": "because", "tonite": "tonight",
        "btw": "by the way", "asap": "as soon as possible", "gonna": "going to", "wanna": "want to", "ok": "okay",
    ]

    /// Replaces whole words (case-insensitively, straight or curly apostrophe) by the table's spelling; a clock
    /// time written "4pm" becomes "4:00 PM" as models write it.
    static func replacingWords(_ text: String, _ table: [String: String], clocks: Bool = false) -> String {
        var out = ""
        var word = ""
        func flush() {
            let key = word.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
            if let replacement = table[key] {
                out += word.first?.isUppercase == true ? replacement.prefix(1).uppercased() + replacement.dropFirst() : replacement
            } else if clocks, let clock = Self.clock(key) {
                out += clock
            } else {
                out += word
            }
            word = ""
        }
        let characters = Array(text)
        for (index, c) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : " "
            if c.isLetter || c.isNumber || ((c == "'" || c == "\u{2019}") && !word.isEmpty && next.isLetter) {
                word.append(c)
            } else if c == "/", word.lowercased() == "w", !next.isLetter {
                word.append(c)
            } else if c == "&", word.isEmpty {
                word = "&"
                flush()
            } else {
                flush()
                out.append(c)
            }
        }
        flush()
        return out
    }

    /// "4pm" → "4:00 PM", "10am" → "10:00 AM"; nil for other words.
    static func clock(_ word: String) -> String? {
        for (suffix, meridiem) in [("pm", "PM"), ("am", "AM")] where word.hasSuffix(suffix) {
            let hour = word.dropLast(2)
            if let value = Int(hour), (1...12).contains(value) { return "\(value):00 \(meridiem)" }
        }
        return nil
    }

    static func withoutEmoji(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { scalar in
            !(scalar.properties.isEmojiPresentation || (scalar.properties.isEmoji && scalar.value > 0x2000)
              || scalar.value == 0xFE0F || scalar.value == 0x200D)
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: "  ", with: " ").trimmingCharacters(in: .whitespaces)
    }

    /// A sentence of ten words or more keeps its first and last four words around "..."; a shorter one of five or
    /// more is cut after its first words with a trailing "…".
    static func cut(_ text: String) -> String {
        let words = text.split(separator: " ")
        if words.count >= 10 { return words.prefix(4).joined(separator: " ") + " ... " + words.suffix(4).joined(separator: " ") }
        if words.count >= 5 { return words.prefix(words.count - 2).joined(separator: " ") + "…" }
        return text
    }

    static let small = ["the", "a", "to", "at", "for", "on", "is", "and", "of", "in"]

    static func dropSmallWord(_ text: String) -> String {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count >= 4, let index = words.indices.dropFirst().first(where: { small.contains(words[$0].lowercased()) }) else { return text }
        words.remove(at: index)
        return words.joined(separator: " ")
    }

    static func addSmallWord(_ text: String) -> String {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count >= 3 else { return text }
        if let index = words.indices.dropLast().first(where: { ["at", "for", "to", "on"].contains(words[$0].lowercased()) }),
           !["the", "a"].contains(words[index + 1].lowercased()) {
            words.insert("the", at: index + 1)
        } else {
            words.insert("just", at: 1)
        }
        return words.joined(separator: " ")
    }

    static func tidy(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "!!", with: ".").replacingOccurrences(of: "\u{2019}", with: "'")
            .replacingOccurrences(of: "\u{201C}", with: "\"").replacingOccurrences(of: "\u{201D}", with: "\"")
        out = String(out.filter { !",;!?()".contains($0) })
        if !out.hasSuffix(".") { out += "." }
        return out
    }
}
