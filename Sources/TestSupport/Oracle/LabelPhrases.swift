import Extractors
import Foundation

/// The `# date` / `# time` comments of a fixture file (evals/fixtures/README.md), keyed by label path
/// ("deadlines[0].deadline"): the phrase as the labeller wrote it and the message it comes from.
package struct LabelPhrases: Sendable {
    package struct Phrase: Sendable, Hashable {
        package let phrase: String
        package let message: String?
    }

    package let dates: [String: Phrase]
    package let times: [String: Phrase]

    package init(fileText: String) {
        var dates: [String: Phrase] = [:]
        var times: [String: Phrase] = [:]
        let pattern = /#\s*(date|time)\s+([\w\[\].]+):\s*"([^"]+)"(?:\s*@([\w-]+))?/
        for line in fileText.split(separator: "\n") {
            guard let m = line.firstMatch(of: pattern) else { continue }
            let phrase = Phrase(phrase: String(m.3), message: m.4.map(String.init))
            if m.1 == "date" { dates[String(m.2)] = phrase } else { times[String(m.2)] = phrase }
        }
        self.dates = dates
        self.times = times
    }

    /// The words of `text` that say the labelled phrase, verbatim: the shortest run of words holding every key word
    /// of the label ("thursday december 10" finds "Thursday 10th December"), with a deadline's "by"/"due"/"before"
    /// kept in front. Nil when the words are not all there.
    package static func verbatim(_ label: String, in text: String, deadline: Bool) -> String? {
        let keys = label.lowercased().split(separator: " ").map(String.init).filter { !["the", "of", "on", "at"].contains($0) }
        guard !keys.isEmpty else { return nil }
        let words = Self.words(text)
        func matches(_ word: String, _ key: String) -> Bool {
            let w = word.lowercased()
            if w == key { return true }
            if key.first?.isNumber == true { return w.prefix { $0.isNumber } == key.prefix { $0.isNumber } }
            return key.count >= 3 && w.count >= 3 && (key.hasPrefix(w) || w.hasPrefix(key))
        }
        var best: Range<Int>?
        for start in words.indices {
            var remaining = keys
            var end = start
            while end < words.count, end - start <= keys.count + 3, !remaining.isEmpty {
                if let index = remaining.firstIndex(where: { matches(words[end].text, $0) }) {
                    remaining.remove(at: index)
                } else if end == start {
                    break
                }
                end += 1
            }
            if remaining.isEmpty, best.map({ end - start < $0.count }) ?? true { best = start..<end }
        }
        guard var span = best else { return nil }
        if label.lowercased().hasPrefix("the "), span.lowerBound > 0, words[span.lowerBound - 1].text.lowercased() == "the" {
            span = (span.lowerBound - 1)..<span.upperBound
        }
        if deadline, span.lowerBound > 0, ["by", "due", "before"].contains(words[span.lowerBound - 1].text.lowercased()) {
            span = (span.lowerBound - 1)..<span.upperBound
        }
        return String(text[words[span.lowerBound].range.lowerBound..<words[span.upperBound - 1].range.upperBound])
    }

    /// `phrase` (found in `text`) widened to the clock time said right after it ("this Friday" → "this Friday at
    /// midnight", "Saturday" → "Saturday at 6 in the morning"), or right before it ("at 2pm on Saturday").
    /// With `time` (the label's time words, "1pm"), only an occurrence whose clock time holds those words is used.
    package static func withTime(_ phrase: String, in text: String, time: String? = nil) -> String {
        var from = text.startIndex
        while let range = text.range(of: phrase, range: from..<text.endIndex) {
            let widened = withTime(phrase, at: range, in: text)
            if let time, !widened.lowercased().contains(time.lowercased()) {
                from = range.upperBound
                continue
            }
            return widened
        }
        return phrase
    }

    private static func withTime(_ phrase: String, at range: Range<String.Index>, in text: String) -> String {
        let clock = #"(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}(?::\d{2})?|noon|midnight)"#
        let after = #"^,?\s*(?:at|by|from|around|@)\s+"# + clock + #"(?:\s*(?:-|to)\s*"# + clock + #")?(?:\s+in the (?:morning|afternoon|evening))?"#
        let loose = #"^,?\s*\d{1,2}(?::\d{2})?\s*(?:am|pm)"#
        let tail = text[range.upperBound...]
        for pattern in [after, loose] {
            if let match = tail.range(of: pattern, options: [.regularExpression, .caseInsensitive]) {
                return String(text[range.lowerBound..<match.upperBound])
            }
        }
        let head = text[..<range.lowerBound]
        if let match = head.range(of: #"(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)\s+(?:on\s+)?$"#, options: [.regularExpression, .caseInsensitive]) {
            return String(text[match.lowerBound..<range.upperBound])
        }
        return phrase
    }

    /// Runs of letters, digits and inner apostrophes, with their ranges.
    static func words(_ text: String) -> [(text: String, range: Range<String.Index>)] {
        var out: [(String, Range<String.Index>)] = []
        var start: String.Index?
        var index = text.startIndex
        func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "'" || c == "’" }
        while index < text.endIndex {
            let c = text[index]
            if isWordChar(c) {
                if start == nil { start = index }
            } else if let s = start {
                out.append((String(text[s..<index]), s..<index))
                start = nil
            }
            index = text.index(after: index)
        }
        if let s = start { out.append((String(text[s...]), s..<text.endIndex)) }
        return out
    }
}
