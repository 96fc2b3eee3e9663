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
/// in the message, and aligned from there both ways by edit distance in a band of `band` words around the diagonal
/// (so the quote may drift at most `band` words from the message: ellipses start new parts). One alignment computes
/// at most `workBound(quoteWords:messageWords:)` cells: proportional to the quote's length (plus a logarithm of the
/// message's per word), never to the product of the two lengths.
enum EvidenceAlignment {
    static let smallWeight = 0.25
    static let maxAnchors = 16
    static let band = 4

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

        /// One part of already folded words (a piece of another quote).
        init(words: [String]) {
            parts = words.isEmpty ? [] : [words]
            weight = words.reduce(0) { $0 + EvidenceAlignment.weight($1) }
        }

        var wordCount: Int { parts.reduce(0) { $0 + $1.count } }
    }

    static func weight(_ word: String) -> Double { EvidenceWords.smallWords.contains(word) ? smallWeight : 1 }

    /// The most word comparisons and position look-ups one alignment of a quote of `quoteWords` words makes in a
    /// message of `messageWords` words.
    static func workBound(quoteWords: Int, messageWords: Int) -> Int {
        let search = Int.bitWidth - (messageWords + 1).leadingZeroBitCount  // ⌈log2(messageWords + 1)⌉ at most
        return quoteWords * (search + 2 + maxAnchors * (2 * band + 1))
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
        let after = Array(part[(anchor.index + 1)...])
        let before = Array(part[..<anchor.index].reversed())
        for position in positions[anchor.first..<min(positions.count, anchor.first + maxAnchors)] {
            let ahead = Array(text.words[(position + 1)..<min(text.words.count, position + 1 + after.count + band)])
            let behind = Array(text.words[max(from, position - before.count - band)..<position].reversed())
            let forward = bandedCost(after, ahead, work: &work)
            let backward = bandedCost(before, behind, work: &work)
            let cost = forward.cost + backward.cost
            if best == nil || cost < best!.cost { best = (cost, position + forward.consumed) }
            if cost == 0 { break }
        }
        return best.map { ($0.cost, $0.end) } ?? (partWeight, nil)
    }

    /// The cheapest alignment of `quote` with the start of `message` (both read away from the anchor), by edit
    /// distance in a band of `band` words around the diagonal: a quoted word not found costs its weight, a message
    /// word skipped half its weight, and the message words after the last one used cost nothing. Returns the cost
    /// and how many message words the alignment used. Computes at most `quote.count · (2 · band + 1)` cells.
    static func bandedCost(_ quote: [String], _ message: [String], work: inout Int) -> (cost: Double, consumed: Int) {
        guard !quote.isEmpty else { return (0, 0) }
        let width = 2 * band + 1
        var previous = [Double](repeating: .infinity, count: width)
        var skipped = 0.0
        for j in 0...min(band, message.count) {
            if j > 0 { skipped += weight(message[j - 1]) / 2 }
            previous[j + band] = skipped
        }
        var current = previous
        for i in 1...quote.count {
            let word = quote[i - 1]
            let wordWeight = weight(word)
            for d in 0..<width {
                let j = i + d - band
                current[d] = .infinity
                guard j >= 0, j <= message.count else { continue }
                work += 1
                var cost = d + 1 < width ? previous[d + 1] + wordWeight : .infinity
                if j >= 1 {
                    if word == message[j - 1] { cost = min(cost, previous[d]) }
                    if d >= 1 { cost = min(cost, current[d - 1] + weight(message[j - 1]) / 2) }
                }
                current[d] = cost
            }
            swap(&previous, &current)
        }
        var best = (cost: Double.infinity, consumed: 0)
        for d in 0..<width {
            let j = quote.count + d - band
            if j >= 0, j <= message.count, previous[d] < best.cost { best = (previous[d], j) }
        }
        return best
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
package enum EvidenceMatching {
    package static func align(quote: String, message: String) -> (score: Double, work: Int) {
        var work = 0
        let text = EvidenceAlignment.Text(normalized: Evidence.normalize(message))
        let score = EvidenceAlignment.score(EvidenceAlignment.Quote(normalized: Evidence.needle(quote)), in: text, work: &work)
        return (score, work)
    }

    /// The score a quote needs to be kept as aligned.
    package static var threshold: Double { GroundingPolicy.alignThreshold }
}
