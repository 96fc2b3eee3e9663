import Foundation

/// A word or one punctuation mark of a message, with its UTF-16 span (the unit the resolver's ranges use).
package struct RuleToken: Sendable, Hashable {
    package let text: String
    /// Lower-cased, with curly apostrophes made straight, for matching cue words.
    package let lower: String
    package let range: Range<Int>
    package let isWord: Bool

    var isCapitalized: Bool { text.first?.isUppercase ?? false }
    var isPossessive: Bool { isWord && (lower.hasSuffix("'s") || (lower.hasSuffix("s'") && lower.count > 2)) }
    /// "8th", "21st".
    var isOrdinal: Bool {
        guard isWord, let firstLetter = lower.firstIndex(where: \.isLetter), firstLetter != lower.startIndex else { return false }
        return lower[..<firstLetter].allSatisfy(\.isNumber) && ["st", "nd", "rd", "th"].contains(String(lower[firstLetter...]))
    }
}

/// Splits text into words (letters, digits, inner apostrophes and hyphens) and single punctuation marks.
package enum RuleTokenizer {
    package static func tokenize(_ text: String) -> [RuleToken] {
        var tokens: [RuleToken] = []
        var word = ""
        var wordStart = 0
        var offset = 0

        func flushWord() {
            while let last = word.last, last == "'" || last == "’" || last == "-" {
                word.removeLast()
            }
            guard !word.isEmpty else { return }
            tokens.append(RuleToken(text: word, lower: normalize(word), range: wordStart..<(wordStart + word.utf16.count), isWord: true))
            word = ""
        }

        for character in text {
            let length = character.utf16.count
            let joinsWord = !word.isEmpty && (character == "'" || character == "’" || character == "-")
            if character.isLetter || character.isNumber || joinsWord {
                if word.isEmpty { wordStart = offset }
                word.append(character)
            } else {
                flushWord()
                if !character.isWhitespace {
                    let text = String(character)
                    tokens.append(RuleToken(text: text, lower: text, range: offset..<(offset + length), isWord: false))
                }
            }
            offset += length
        }
        flushWord()
        return tokens
    }

    /// Lower-cased, each `’` (a character of its own) made `'`. Pure standard library: Foundation's
    /// `replacingOccurrences` bridges every word through NSString.
    package static func normalize(_ word: String) -> String {
        let lower = word.lowercased()
        guard lower.utf8.contains(0xE2), lower.contains("’") else { return lower }
        var result = ""
        result.reserveCapacity(lower.utf8.count)
        for character in lower { result.append(character == "’" ? "'" : character) }
        return result
    }

    /// The lower-cased words of a cue phrase ("can't make it" → ["can't", "make", "it"]).
    package static func words(_ phrase: String) -> [String] {
        if let simple = simpleWords(phrase) { return simple }
        return tokenize(phrase).filter(\.isWord).map(\.lower)
    }

    /// The words of a cue that `tokenize` would give back unchanged, split at its spaces without tokenizing:
    /// lower-case ASCII letters and digits, single spaces, and `'` or `-` only inside a word. Nil for any other
    /// phrase, the empty one included (the caller then tokenizes it). Every cue the rules ship is of this form.
    package static func simpleWords(_ phrase: String) -> [String]? {
        var phrase = phrase
        guard phrase.withUTF8({ isSimple($0) }) else { return nil }
        return phrase.split(separator: " ").map(String.init)
    }

    /// See `simpleWords`: not empty; each word starts and ends with a letter or digit.
    static func isSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var previous: UInt8 = 0x20
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case 0x20, UInt8(ascii: "'"), UInt8(ascii: "-"):
                // Only after a letter or digit: no leading, double or trailing space, no word starting with ' or -.
                guard previous != 0x20, previous != UInt8(ascii: "'"), previous != UInt8(ascii: "-") else { return false }
            default: return false
            }
            previous = byte
        }
        return previous != 0x20 && previous != UInt8(ascii: "'") && previous != UInt8(ascii: "-")
    }
}

/// The words of a text, so cue phrases match on word boundaries only ("pay" never matches "paypal", "no" never
/// matches "know"); punctuation between words is ignored. A cue matches where its words appear in a row — the same
/// as searching " cue words " in the words joined by single spaces, without building or searching that string.
package struct CueText: Sendable {
    package let words: [String]

    package init(_ text: String) {
        self.init(tokens: RuleTokenizer.tokenize(text))
    }

    init(tokens: [RuleToken]) {
        words = tokens.filter(\.isWord).map(\.lower)
    }

    package func contains(_ cue: String) -> Bool {
        if let found = matchSimple(cue, where: .anywhere) { return found }
        let cueWords = RuleTokenizer.words(cue)
        // No words: the old padded search for "  " found it only in an empty text.
        guard !cueWords.isEmpty else { return words.isEmpty }
        guard cueWords.count <= words.count else { return false }
        for start in 0...(words.count - cueWords.count) where matches(cueWords, at: start) { return true }
        return false
    }

    package func hasPrefix(_ cue: String) -> Bool {
        if let found = matchSimple(cue, where: .start) { return found }
        let cueWords = RuleTokenizer.words(cue)
        guard !cueWords.isEmpty else { return words.isEmpty }
        return cueWords.count <= words.count && matches(cueWords, at: 0)
    }

    package func hasSuffix(_ cue: String) -> Bool {
        if let found = matchSimple(cue, where: .end) { return found }
        let cueWords = RuleTokenizer.words(cue)
        guard !cueWords.isEmpty else { return words.isEmpty }
        return cueWords.count <= words.count && matches(cueWords, at: words.count - cueWords.count)
    }

    private func matches(_ cueWords: [String], at start: Int) -> Bool {
        for offset in cueWords.indices where words[start + offset] != cueWords[offset] { return false }
        return true
    }

    private enum Anchor { case anywhere, start, end }

    /// Matches a cue of `RuleTokenizer.simpleWords`' form on its UTF-8 bytes, without splitting it into strings;
    /// nil for any other cue. Byte equality is string equality here: the cue's words are plain ASCII.
    private func matchSimple(_ cue: String, where anchor: Anchor) -> Bool? {
        var cue = cue
        return cue.withUTF8 { bytes -> Bool? in
            guard RuleTokenizer.isSimple(bytes) else { return nil }
            var count = 1
            for byte in bytes where byte == 0x20 { count += 1 }
            guard count <= words.count else { return false }
            switch anchor {
            case .start: return matches(bytes, at: 0)
            case .end: return matches(bytes, at: words.count - count)
            case .anywhere:
                for start in 0...(words.count - count) where matches(bytes, at: start) { return true }
                return false
            }
        }
    }

    private func matches(_ cue: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var wordIndex = start
        var segmentStart = 0
        for index in 0...cue.count where index == cue.count || cue[index] == 0x20 {
            let segment = UnsafeBufferPointer(rebasing: cue[segmentStart..<index])
            let word = words[wordIndex].utf8
            guard word.count == segment.count, word.elementsEqual(segment) else { return false }
            wordIndex += 1
            segmentStart = index + 1
        }
        return true
    }

    /// The first cue of the list that the text contains (list order is priority order).
    func first(of cues: [String]) -> String? { cues.first(where: contains) }
    func firstPrefix(of cues: [String]) -> String? { cues.first(where: hasPrefix) }
}

extension String {
    /// The text in a UTF-16 range, clamped to the string.
    func utf16Slice(_ range: Range<Int>) -> String {
        let units = utf16
        let lower = units.index(units.startIndex, offsetBy: Swift.max(0, Swift.min(range.lowerBound, units.count)))
        let upper = units.index(units.startIndex, offsetBy: Swift.max(0, Swift.min(range.upperBound, units.count)))
        guard lower < upper else { return "" }
        return String(decoding: units[lower..<upper], as: UTF16.self)
    }

    /// Whitespace runs collapsed to single spaces, trimmed.
    var collapsedWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// At most `limit` characters, cut at a word boundary, with "…" when cut.
    func shortened(to limit: Int) -> String {
        let text = collapsedWhitespace
        guard text.count > limit else { return text }
        let head = String(text.prefix(limit - 1))
        let cut = head.lastIndex(of: " ").map { String(head[..<$0]) } ?? head
        return cut.trimmingCharacters(in: CharacterSet(charactersIn: " ,;:-")) + "…"
    }

    /// The first letter upper-cased, the rest as written.
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
