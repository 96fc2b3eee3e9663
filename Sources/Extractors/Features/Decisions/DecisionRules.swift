import Core

/// Decisions: a sentence with an agreement cue ("so the plan is", "agreed", "works for us") that is not a
/// question and not negated. The decision is the clause after the cue; a bare "Agreed!" takes the previous
/// message (someone else's proposal) as the decision and cites both.
enum DecisionRules {
    struct Decision {
        var text: String
        var category: DecisionCategory
        var decidedBy: String?
        var date: DateMention?
        var sources: [String]
        var evidence: String
        /// Made by `commitment`: one person taking on a task (adjacent ones merge into one decision).
        var isCommitment = false

        var json: JSONValue {
            .object([
                "decision": .string(text),
                "category": .string(category.rawValue),
                "decided_by": RuleJSON.string(decidedBy),
                "deadline": RuleJSON.string(date?.date.iso),
                "date_phrase": RuleJSON.string(date?.phrase),
                "evidence": .string(evidence),
                "source_message_ids": .array(sources.map(JSONValue.string)),
            ])
        }
    }

    static func answer(_ scan: RuleScan) -> JSONValue {
        var decisions: [Decision] = []
        for message in scan.messages where !message.isSuspicious {
            guard let (sentence, cue) = agreement(in: message) else { continue }
            let words = sentence.tokens.filter(\.isWord)
            let cueWords = RuleTokenizer.words(cue)
            guard let start = EventVocabulary.find(cueWords, in: words) else { continue }
            let clause = Array(words[(start + cueWords.count)...].drop { ["to", "that", "on", "is", "was", "we"].contains($0.lower) })
            let otherWords = message.cues.words.count - cueWords.count

            var decision: Decision
            if clause.count >= 2, let first = clause.first, let last = clause.last {
                let text = message.text.utf16Slice(first.range.lowerBound..<last.range.upperBound)
                decision = Decision(text: text.shortened(to: 120).capitalizedFirst, category: .other, date: date(in: message),
                                    sources: [message.alias], evidence: message.evidence(around: sentence.range))
            } else if otherWords <= 1, message.index > 0, case let proposal = scan.messages[message.index - 1],
                      !proposal.isSuspicious, proposal.message.senderID != message.message.senderID {
                if let index = decisions.firstIndex(where: { $0.sources.last == proposal.alias }) {
                    decisions[index].sources.append(message.alias)
                    continue
                }
                decision = Decision(text: proposal.text.shortened(to: 120), category: .other, date: date(in: proposal),
                                    sources: [proposal.alias, message.alias], evidence: proposal.evidence())
            } else {
                decision = Decision(text: message.text.shortened(to: 120), category: .other, date: date(in: message),
                                    sources: [message.alias], evidence: message.evidence(around: sentence.range))
            }
            decision.category = category(CueText(decision.text), hasDate: decision.date != nil)
            if sentence.cues.first(of: ["i decided", "i've decided"]) != nil { decision.decidedBy = message.senderAlias }
            decisions.append(decision)
        }
        // Requests answered yes and commitments, in messages no agreement cue has claimed.
        for message in scan.messages where !message.isSuspicious {
            let claimed = decisions.contains { $0.sources.contains(message.alias) }
            guard !claimed, var decision = acceptedRequest(message, in: scan) ?? settled(message, in: scan) ?? commitment(message, in: scan)
            else { continue }
            // Several people taking on parts of one plan in a row ("I'll bring drinks", "I'll do salads") are one decision.
            if decision.isCommitment, let last = decisions.indices.last, decisions[last].isCommitment,
               let lastMessage = decisions[last].sources.last.flatMap({ alias in scan.messages.firstIndex { $0.alias == alias } }),
               message.index - lastMessage <= 1, decisions[last].sources.count < 4 {
                for source in decision.sources where !decisions[last].sources.contains(source) { decisions[last].sources.append(source) }
                continue
            }
            let cited = decision.sources.compactMap { alias in scan.messages.first { $0.alias == alias }?.text }
            decision.category = category(CueText(cited.joined(separator: " ")), hasDate: decision.date != nil)
            decisions.append(decision)
        }
        return .object(["decisions": .array(decisions.map(\.json))])
    }

    /// The first statement (not a question) with an agreement cue and no negation.
    static func agreement(in message: ScannedMessage) -> (RuleSentence, String)? {
        for sentence in message.sentences where !sentence.isQuestion {
            guard sentence.cues.first(of: RuleCues.decisionNegations) == nil, let cue = sentence.cues.first(of: RuleCues.decision) else { continue }
            return (sentence, cue)
        }
        return nil
    }

    /// The date the decision applies to: a deadline form, else the first upcoming date that names a day.
    static func date(in message: ScannedMessage) -> DateMention? {
        let upcoming = message.upcomingMentions.filter { !$0.isTimeOnly }
        return upcoming.first(where: \.isDeadline) ?? upcoming.first
    }

    static func category(_ cues: CueText, hasDate: Bool) -> DecisionCategory {
        let table: [(DecisionCategory, [String])] = [
            (.carpool, ["carpool", "drive", "drives", "driving", "pickup", "pick up", "pick-up", "drop off", "dropoff", "drop-off", "ride", "rides"]),
            (.food, ["snack", "snacks", "food", "pizza", "lunch", "dinner", "breakfast", "cupcakes", "treats", "potluck", "drinks",
                      "tacos", "sandwiches", "salad", "salads", "dessert", "cake", "pies", "turkey", "bbq"]),
            (.purchase, ["buy", "order", "purchase", "gift", "gifts", "chip in", "pay for"]),
            (.activity, ["practice", "class", "activity", "lesson", "lessons", "team", "camp", "game"]),
            (.schedule, ["time", "schedule", "move", "moved", "reschedule", "rescheduled", "date"]),
        ]
        for (category, words) in table where cues.first(of: words) != nil { return category }
        return hasDate ? .schedule : .other
    }
}
