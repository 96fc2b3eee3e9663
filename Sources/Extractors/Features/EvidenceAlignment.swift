/// How well a model's quote lines up with one message, word by word and in order (`EvidenceWords` folds what
/// copying changes). A score of 1 is every quoted word found in order with nothing skipped between them.
///
/// The cost of an alignment, over the quote's weight (content words 1, function words `smallWeight`):
/// - a quoted word not found in order: its full weight (the model added or invented it);
/// - a message word skipped between two found words: half its weight (the model left it out);
/// - the words before the first and after the last found word cost nothing (a quote is a part of a message), nor do
///   the words between the parts of a quote cut with an ellipsis: each part is aligned after the one before it.
///
/// The work is bounded and linear: each part is anchored at the positions (at most `maxAnchors`) of its rarest word
/// in the message, and extended from there word by word, looking at most `lookahead` words ahead or back. So one
/// alignment compares at most `workBound(quoteWords:messageWords:)` word pairs: proportional to the quote's length
/// (times a logarithm of the message's), never to the product of the two lengths.
enum EvidenceAlignment {
    static let smallWeight = 0.25
    static let maxAnchors = 16
    static let lookahead = 4

    /// One message's words, with the positions of each word, built once per message.
    struct Text: Sendable {
        let words: [String]
        let positions: [String: [Int]]

        init(normalized: String) {
            words = EvidenceWords.words(normalized)
            var positions: [String: [Int]] = [:]
            for (index, word) in words.enumerated() { positions[word, default: []].append(index) }
            self.positions = positions
        }
    }

    /// A quote's words, split at its ellipses ("..." or "…").
    struct Quote: Sendable {
        let parts: [[String]]
        let weight: Double

        init(normalized: String) {
            parts = normalized.components(separatedBy: "...").map(EvidenceWords.words).filter { !$0.isEmpty }
            weight = parts.joined().reduce(0) { $0 + EvidenceAlignment.weight($1) }
        }

        var wordCount: Int { parts.reduce(0) { $0 + $1.count } }
    }

    static func weight(_ word: String) -> Double { EvidenceWords.smallWords.contains(word) ? smallWeight : 1 }

    /// The most word comparisons and position look-ups one alignment of a quote of `quoteWords` words makes in a
    /// message of `messageWords` words.
    static func workBound(quoteWords: Int, messageWords: Int) -> Int {
        let search = Int.bitWidth - (messageWords + 1).leadingZeroBitCount  // ⌈log2(messageWords + 1)⌉ at most
        return quoteWords * (search + 2 + maxAnchors * 2 * lookahead)
    }

    /// The score (0...1) of `quote`'s best alignment in `text`; `work` counts the comparisons and look-ups made.
    static func score(_ quote: Quote, in text: Text, work: inout Int) -> Double {
        guard quote.weight > 0 else { return 0 }
        var cost = 0.0
        var from = 0
        for part in quote.parts {
            let aligned = align(part, in: text, from: from, work: &work)
            cost += aligned.cost
            if let end = aligned.end { from = end + 1 }
        }
        return max(0, 1 - cost / quote.weight)
    }

    /// The cheapest alignment of one part at or after word `from`, and the message index of its last found word.
    private static func align(_ part: [String], in text: Text, from: Int, work: inout Int) -> (cost: Double, end: Int?) {
        let partWeight = part.reduce(0) { $0 + weight($1) }
        // The anchor: the part's word with the fewest occurrences at or after `from` (content words first).
        var anchor: (index: Int, first: Int, count: Int, small: Bool)?
        for (index, word) in part.enumerated() {
            guard let positions = text.positions[word] else { work += 1; continue }
            let first = lowerBound(positions, from, work: &work)
            let count = positions.count - first
            guard count > 0 else { continue }
            let small = weight(word) < 1
            if let best = anchor, (best.small ? 1 : 0, best.count) <= (small ? 1 : 0, count) { continue }
            anchor = (index, first, count, small)
        }
        guard let anchor, let positions = text.positions[part[anchor.index]] else { return (partWeight, nil) }
        var best: (cost: Double, end: Int)?
        for position in positions[anchor.first..<min(positions.count, anchor.first + maxAnchors)] {
            let forward = extend(part, from: anchor.index, at: position, step: 1, limit: text.words.count - 1, text: text, work: &work)
            let backward = extend(part, from: anchor.index, at: position, step: -1, limit: from, text: text, work: &work)
            let cost = forward.cost + backward.cost
            if best == nil || cost < best!.cost { best = (cost, forward.last) }
            if cost == 0 { break }
        }
        return best.map { ($0.cost, $0.end) } ?? (partWeight, nil)
    }

    /// Walks the part's words after (`step` 1) or before (-1) `quoteIndex`, each found within `lookahead` words of
    /// the last found one, never past `limit`. Returns the cost and the message index of the last word found.
    private static func extend(_ part: [String], from quoteIndex: Int, at position: Int, step: Int, limit: Int, text: Text,
                               work: inout Int) -> (cost: Double, last: Int) {
        var cost = 0.0
        var last = position
        var q = quoteIndex + step
        while q >= 0, q < part.count {
            var found: Int?
            var m = last + step
            var looked = 0
            while looked < lookahead, step > 0 ? m <= limit : m >= limit {
                work += 1
                if text.words[m] == part[q] { found = m; break }
                m += step
                looked += 1
            }
            if let found {
                var skipped = last + step
                while skipped != found {
                    work += 1
                    cost += weight(text.words[skipped]) / 2
                    skipped += step
                }
                last = found
            } else {
                cost += weight(part[q])
            }
            q += step
        }
        return (cost, last)
    }

    /// The index of the first element of sorted `values` at least `value` (binary search).
    private static func lowerBound(_ values: [Int], _ value: Int, work: inout Int) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            work += 1
            let mid = (low + high) / 2
            if values[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// The evidence check's alignment of one quote with one message, as `ground` runs it when the quote is not verbatim
/// (normalising and splitting the message into words included): the score and the comparisons made. For the
/// benchmark and for tools that explain a drop.
public enum EvidenceMatching {
    public static func align(quote: String, message: String) -> (score: Double, work: Int) {
        var work = 0
        let text = EvidenceAlignment.Text(normalized: Evidence.normalize(message))
        let score = EvidenceAlignment.score(EvidenceAlignment.Quote(normalized: Evidence.needle(quote)), in: text, work: &work)
        return (score, work)
    }

    /// The score a quote needs to be kept as aligned.
    public static var threshold: Double { GroundingPolicy.alignThreshold }
}
