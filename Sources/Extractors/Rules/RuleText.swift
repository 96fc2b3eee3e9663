import Foundation

/// A word or one punctuation mark of a message, with its UTF-16 span (the unit the resolver's ranges use).
struct RuleToken: Sendable, Hashable {
    let text: String
    /// Lower-cased, with curly apostrophes made straight, for matching cue words.
    let lower: String
    let range: Range<Int>
    let isWord: Bool

    var isCapitalized: Bool { text.first?.isUppercase ?? false }
    var isPossessive: Bool { isWord && (lower.hasSuffix("'s") || (lower.hasSuffix("s'") && lower.count > 2)) }
    /// "8th", "21st".
    var isOrdinal: Bool {
        guard isWord, let firstLetter = lower.firstIndex(where: \.isLetter), firstLetter != lower.startIndex else { return false }
        return lower[..<firstLetter].allSatisfy(\.isNumber) && ["st", "nd", "rd", "th"].contains(String(lower[firstLetter...]))
    }
}

/// Splits text into words (letters, digits, inner apostrophes and hyphens) and single punctuation marks.
enum RuleTokenizer {
    static func tokenize(_ text: String) -> [RuleToken] {
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

    static func normalize(_ word: String) -> String {
        word.lowercased().replacingOccurrences(of: "’", with: "'")
    }

    /// The lower-cased words of a cue phrase ("can't make it" → ["can't", "make", "it"]).
    static func words(_ phrase: String) -> [String] { tokenize(phrase).filter(\.isWord).map(\.lower) }
}

/// The words of a text joined by single spaces, so cue phrases match on word boundaries only
/// ("pay" never matches "paypal", "no" never matches "know"); punctuation between words is ignored.
struct CueText: Sendable {
    let words: [String]
    private let padded: String

    init(_ text: String) {
        self.init(tokens: RuleTokenizer.tokenize(text))
    }

    init(tokens: [RuleToken]) {
        words = tokens.filter(\.isWord).map(\.lower)
        padded = " " + words.joined(separator: " ") + " "
    }

    func contains(_ cue: String) -> Bool { padded.contains(" " + RuleTokenizer.words(cue).joined(separator: " ") + " ") }
    func hasPrefix(_ cue: String) -> Bool { padded.hasPrefix(" " + RuleTokenizer.words(cue).joined(separator: " ") + " ") }
    func hasSuffix(_ cue: String) -> Bool { padded.hasSuffix(" " + RuleTokenizer.words(cue).joined(separator: " ") + " ") }

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
