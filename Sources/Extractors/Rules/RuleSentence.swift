/// One sentence of a message: the unit most rules look at, so a cue and a date only pair up when they are
/// said together.
struct RuleSentence: Sendable {
    /// UTF-16 span in the message.
    let range: Range<Int>
    let text: String
    /// Tokens with ranges in the message's UTF-16 offsets.
    let tokens: [RuleToken]
    let cues: CueText
    /// Ends with "?" (a question asks; it does not announce).
    let isQuestion: Bool

    /// Abbreviations whose period does not end a sentence ("Dr. Lee", "St. Mary's").
    static let abbreviations: Set<String> = ["dr", "mr", "mrs", "ms", "st", "mt", "ave", "jr", "sr", "vs", "etc", "rd", "blvd"]

    /// Splits at ".", "!" and "?" followed by a space or the end, and at line breaks.
    static func split(_ text: String, tokens: [RuleToken]) -> [RuleSentence] {
        var sentences: [RuleSentence] = []
        var current: [RuleToken] = []

        func flush() {
            guard let first = current.first, let last = current.last else { return }
            let range = first.range.lowerBound..<last.range.upperBound
            let trailing = current.reversed().prefix { !$0.isWord }
            sentences.append(RuleSentence(
                range: range, text: text.utf16Slice(range), tokens: current, cues: CueText(tokens: current),
                isQuestion: trailing.contains { $0.text == "?" }))
            current = []
        }

        for (index, token) in tokens.enumerated() {
            if let previous = current.last, text.utf16Slice(previous.range.upperBound..<token.range.lowerBound).contains(where: \.isNewline) {
                flush()
            }
            current.append(token)
            guard !token.isWord, [".", "!", "?"].contains(token.text) else { continue }
            let next = index + 1 < tokens.count ? tokens[index + 1] : nil
            if let next, !next.isWord, [".", "!", "?", ")"].contains(next.text) { continue }
            if let next, next.range.lowerBound == token.range.upperBound { continue }
            if token.text == ".", current.count >= 2 {
                let before = current[current.count - 2]
                // An initial ("J. Smith") or a title ("Dr. Chen"); a number ("December 4.") does end a sentence.
                let isInitial = before.lower.count == 1 && before.lower.first?.isLetter == true
                if before.isWord, isInitial || abbreviations.contains(before.lower) { continue }
            }
            flush()
        }
        flush()
        return sentences
    }

    func contains(_ range: Range<Int>) -> Bool { range.lowerBound >= self.range.lowerBound && range.upperBound <= self.range.upperBound }
}
