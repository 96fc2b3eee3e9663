import Foundation

/// The evidence check's thresholds, chosen from the score distributions of misquoted and invented quotes over the
/// eval fixtures (benchmarks/RESULTS.md, "Evidence alignment").
enum GroundingPolicy {
    /// A quote aligns with a message at this score or above.
    static let alignThreshold = 0.7
    /// A cited message that aligns this close to the best-aligning one keeps the citation.
    static let keepMargin = 0.1
    /// A priority message is kept on its own citation when its quote aligns with it at least this well (the quote
    /// is an attempt at that message); below it, the quote is made up and the item is dropped.
    static let priorityFloor = 0.4
    /// A priority message's quote moves the citation only when another message aligns this much better.
    static let clearMargin = 0.3
    /// A quote split across two consecutive messages: each part weighs at least this (two content words), so a stray
    /// word or two of an invented quote never aligns a part on its own.
    static let mergePartWeight = 2.0
    /// How many best-scoring messages a quote that aligns with none alone is tried across, and its longest length.
    static let mergeCandidates = 6
    static let mergeMaxWords = 80
}

extension DecodeContext {
    /// The evidence check. The item's quote is looked for verbatim (case, whitespace, quotes and dashes folded) in
    /// the window's messages; when it is verbatim in none, it is aligned word by word with each (`EvidenceAlignment`:
    /// ellipses, emoji, contractions, chat spellings, a missing or extra small word and punctuation are tolerated).
    /// - Kept as cited when a cited message holds it or aligns with it about as well as any other message.
    /// - Re-cited (with a note) to the best-aligning message, the nearest to the first cited one, otherwise.
    /// - Dropped and reported when no message of the window aligns with it.
    /// `isMessage` (priority messages: the item is the cited message) keeps the citation whatever the quote, unless
    /// the quote clearly belongs to another message (re-cited) or shares too little with the cited one to be an
    /// attempt at quoting it (made up: dropped). An empty quote keeps a priority message and drops any other item.
    /// Returns the sources to keep and the message that holds the evidence.
    mutating func ground(_ evidence: String?, sources: [String], item: String, isMessage: Bool = false)
        -> (sources: [String], holder: String)? {
        let needle = Evidence.needle(evidence ?? "")
        let cited = window.messages.indices.filter { sources.contains(window.messages[$0].id) }
        guard !needle.isEmpty else {
            if isMessage, let first = cited.first {
                tally.aligned += 1
                return (sources, window.messages[first].id)
            }
            tally.dropped += 1
            note(.noEvidence, "dropped \(item): it quotes no evidence")
            return nil
        }
        let holding = evidenceIndex.holding(needle)
        if let holder = holding.first(where: cited.contains) {
            tally.exact += 1
            return (sources, window.messages[holder].id)
        }
        let quote = EvidenceAlignment.Quote(normalized: needle)
        var scores: [Int: Double] = [:]
        if !holding.isEmpty {
            // Verbatim in another message: that one is the best, as before alignment; only a priority message asks
            // how well its own message aligns.
            for index in holding { scores[index] = 1 }
            if isMessage { for index in cited { scores[index] = alignmentScore(quote, index) } }
        } else {
            for index in window.messages.indices { scores[index] = alignmentScore(quote, index) }
        }
        let citedBest = cited.max { scores[$0, default: 0] < scores[$1, default: 0] }
        let citedScore = citedBest.map { scores[$0, default: 0] } ?? 0
        let best = scores.values.max() ?? 0
        let threshold = GroundingPolicy.alignThreshold
        if let citedBest, citedScore >= threshold, citedScore >= best - GroundingPolicy.keepMargin || isMessage {
            tally.aligned += 1
            note(.alignedEvidence, "\(item): its evidence is not verbatim in \(alias(citedBest)) but aligns with it "
                 + "(score \(String(format: "%.2f", citedScore))); kept")
            return (sources, window.messages[citedBest].id)
        }
        if isMessage, let citedBest, citedScore >= GroundingPolicy.priorityFloor,
           !(best >= threshold && best - citedScore >= GroundingPolicy.clearMargin) {
            tally.aligned += 1
            note(.alignedEvidence, "\(item): kept the cited \(alias(citedBest)) (a priority item is its message); its "
                 + "evidence only partly aligns with it (score \(String(format: "%.2f", citedScore)))")
            return (sources, window.messages[citedBest].id)
        }
        if holding.isEmpty, let merged = mergedHolders(quote, scores: scores, cited: cited, anyPair: best < threshold) {
            tally.aligned += 1
            let parts = merged.map { alias($0) }.joined(separator: " and ")
            if isMessage {
                // A priority item is one message: the cited one when the quote runs through it, else where it starts.
                let own = merged.first(where: cited.contains) ?? merged[0]
                note(.alignedEvidence, "\(item): its evidence runs across consecutive messages \(parts); it is \(alias(own))")
                return ([window.messages[own].id], window.messages[own].id)
            }
            note(.alignedEvidence, "\(item): its evidence runs across consecutive messages \(parts); cites each")
            let ids = (sources + merged.map { window.messages[$0].id }).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return (ids.sorted { sentAt($0) < sentAt($1) }, window.messages[merged[0]].id)
        }
        guard best >= threshold else {
            tally.dropped += 1
            note(.noEvidence, "dropped \(item): its evidence '\((evidence ?? "").prefix(60))' is in no message of the conversation")
            return nil
        }
        let citedIndex = cited.first ?? 0
        let nearest = scores.filter { $0.value >= best - 1e-9 }.keys.min { (abs($0 - citedIndex), $0) < (abs($1 - citedIndex), $1) }!
        let id = window.messages[nearest].id
        let was = sources.compactMap { window.alias(ofMessage: $0) }.joined(separator: ", ")
        tally.recited += 1
        note(.recited, "\(item): its evidence is in \(alias(nearest)), not in the cited \(was); cites that message instead")
        return ([id], id)
    }

    /// A quote that runs on from one message into the next (a model quoting facts written as two messages as one):
    /// the consecutive window messages whose parts of the quote, in order, each align at the threshold, each part at
    /// least `mergePartWeight` of the quote's weight. Only pairs that hold a cited message are tried, or, with
    /// `anyPair` (no message aligns alone), pairs around the best-scoring messages. Bounded: at most `mergeCandidates`
    /// messages, `mergeMaxWords` quote words, one alignment per split point and side.
    private mutating func mergedHolders(_ quote: EvidenceAlignment.Quote, scores: [Int: Double], cited: [Int], anyPair: Bool) -> [Int]? {
        guard quote.parts.count == 1, let words = quote.parts.first, words.count >= 4, words.count <= GroundingPolicy.mergeMaxWords else { return nil }
        var starts: [Int] = []
        let ranked = anyPair
            ? scores.filter { $0.value > 0 }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(GroundingPolicy.mergeCandidates).map(\.key)
            : []
        for index in cited + ranked {
            for start in [index - 1, index] where start >= 0 && start + 1 < window.messages.count && !starts.contains(start) {
                starts.append(start)
            }
        }
        var best: (score: Double, pair: [Int])?
        for start in starts {
            for split in 2...(words.count - 2) {
                let head = Array(words[..<split])
                let tail = Array(words[split...])
                let weights = (head.reduce(0) { $0 + EvidenceAlignment.weight($1) }, tail.reduce(0) { $0 + EvidenceAlignment.weight($1) })
                guard min(weights.0, weights.1) >= GroundingPolicy.mergePartWeight else { continue }
                let first = alignmentScore(EvidenceAlignment.Quote(words: head), start)
                guard first >= GroundingPolicy.alignThreshold else { continue }
                let second = alignmentScore(EvidenceAlignment.Quote(words: tail), start + 1)
                let score = min(first, second)
                if score >= GroundingPolicy.alignThreshold, score > (best?.score ?? 0) { best = (score, [start, start + 1]) }
                if score >= 1 { return [start, start + 1] }
            }
        }
        return best?.pair
    }

    /// The first of `sources` whose text aligns with the date `phrase` (chat spellings and small words tolerated).
    mutating func alignedMessage(phrase: String, in sources: [String]) -> InputMessage? {
        let quote = EvidenceAlignment.Quote(normalized: Evidence.needle(phrase))
        for index in window.messages.indices where sources.contains(window.messages[index].id) {
            if alignmentScore(quote, index) >= GroundingPolicy.alignThreshold { return input.message(window.messages[index].id) }
        }
        return nil
    }

    private func alias(_ index: Int) -> String {
        let id = window.messages[index].id
        return window.alias(ofMessage: id) ?? id
    }

    /// `quote`'s alignment score with window message `index`, its words built once per decode.
    private mutating func alignmentScore(_ quote: EvidenceAlignment.Quote, _ index: Int) -> Double {
        let text: EvidenceAlignment.Text
        if let built = alignmentTexts[index] {
            text = built
        } else {
            text = EvidenceAlignment.Text(normalized: evidenceIndex.texts[index])
            alignmentTexts[index] = text
        }
        var work = 0
        return EvidenceAlignment.score(quote, in: text, work: &work)
    }
}
