/// A failed model answer cut for sending back in a re-ask: its head and its tail with a note of what was cut
/// between them, so a long wrong answer cannot fill the context it is asked again in.
package enum AnswerExcerpt {
    /// Characters of a failed answer a re-ask sends back (about 500 tokens); the errors found in it go along.
    package static let defaultLimit = 2_000

    /// `text` itself when it fits in `limit` characters, else about two thirds of the limit from its start and a
    /// third from its end around a note saying how many characters were left out.
    package static func cut(_ text: String, limit: Int = defaultLimit) -> String {
        let limit = max(limit, 64)
        guard text.count > limit else { return text }
        let tail = limit / 3
        let head = limit - tail
        let omitted = text.count - head - tail
        return String(text.prefix(head)) + "\n[… \(omitted) characters of this answer cut …]\n" + String(text.suffix(tail))
    }
}
