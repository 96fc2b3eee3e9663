import Foundation

/// A word, a run of ASCII digits or one punctuation mark, with its UTF-16 span in the input.
struct DateToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable { case word, number, punctuation }

    let kind: Kind
    /// The text as written.
    let text: String
    /// Lower-cased text, for matching words.
    let lower: String
    let start: Int
    let end: Int

    var isNumber: Bool { kind == .number }
    var isPunctuation: Bool { kind == .punctuation }
    /// The value of a number token; nil for other kinds (and for absurdly long digit runs).
    var number: Int? { kind == .number && text.count <= 9 ? Int(text) : nil }
    var isCapitalized: Bool { text.first?.isUppercase ?? false }
}

/// Splits text into `DateToken`s. Letters and digits never share a token ("4pm" is `4`, `pm`),
/// so the grammar can ask whether two tokens touch instead of re-scanning characters.
enum DateTokenizer {
    static func tokenize(_ text: String) -> [DateToken] {
        var tokens: [DateToken] = []
        var current: (kind: DateToken.Kind, scalars: String.UnicodeScalarView, start: Int)?
        var offset = 0

        func flush() {
            guard let run = current else { return }
            let text = String(run.scalars)
            tokens.append(DateToken(kind: run.kind, text: text, lower: text.lowercased(), start: run.start, end: offset))
            current = nil
        }

        for scalar in text.unicodeScalars {
            let kind: DateToken.Kind?
            if scalar.isASCII, ("0"..."9").contains(scalar) {
                kind = .number
            } else if CharacterSet.letters.contains(scalar) || CharacterSet.nonBaseCharacters.contains(scalar) {
                kind = .word
            } else if CharacterSet.whitespacesAndNewlines.contains(scalar) || CharacterSet.controlCharacters.contains(scalar) {
                kind = nil
            } else {
                kind = .punctuation
            }
            if let kind, kind != .punctuation, current?.kind == kind {
                current!.scalars.append(scalar)
            } else {
                flush()
                if let kind { current = (kind, String.UnicodeScalarView([scalar]), offset) }
            }
            offset += scalar.utf16.count
            if kind == .punctuation { flush() }
        }
        flush()
        return tokens
    }
}
