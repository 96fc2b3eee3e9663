import Core
import Foundation

/// Deadlines: a sentence with a due-date cue ("due", "deadline", "pay", "turn in", or "by <day>") and an
/// upcoming date. "RSVP by Friday" is an RSVP's answer deadline, not a task, and is left to the RSVP rules.
enum DeadlineRules {
    static func answer(_ scan: RuleScan) -> JSONValue {
        var items: [JSONValue] = []
        for message in scan.messages where !message.isSuspicious && !message.cues.contains("already") {
            var seen: Set<LocalDate> = []
            for sentence in message.sentences where !sentence.isQuestion {
                guard let mention = deadlineMention(in: sentence, of: message), seen.insert(mention.date).inserted else { continue }
                items.append(item(mention, sentence: sentence, message: message))
            }
        }
        return .object(["deadlines": .array(items)])
    }

    /// The sentence's due date: a deadline form naming a day, or any upcoming date next to a cue word.
    static func deadlineMention(in sentence: RuleSentence, of message: ScannedMessage) -> DateMention? {
        let candidates = message.mentions(in: sentence).filter { mention in
            mention.date >= message.sentDay && !isRSVPDeadline(mention, sentence: sentence, message: message)
        }
        let formed = candidates.first { $0.isDeadline && !$0.isTimeOnly }
        if let formed { return formed }
        guard sentence.cues.first(of: RuleCues.deadline) != nil else { return nil }
        return candidates.first { $0.isDeadline } ?? candidates.first { !$0.isTimeOnly }
    }

    static func isRSVPDeadline(_ mention: DateMention, sentence: RuleSentence, message: ScannedMessage) -> Bool {
        let before = message.wordsBefore(mention, within: sentence)
        return RuleCues.rsvpDeadlineLeads.contains { before.hasSuffix($0) }
    }

    static func item(_ mention: DateMention, sentence: RuleSentence, message: ScannedMessage) -> JSONValue {
        let days = message.sentDay.days(until: mention.date)
        let priority = message.cues.first(of: ["urgent", "asap", "today", "tonight"]) != nil ? "urgent" : days <= 2 ? "high" : "medium"
        return .object([
            "task": .string(task(sentence, message: message)),
            "deadline": .string(mention.date.iso),
            "time": RuleJSON.time(mention.time),
            "category": .string(category(sentence.cues, text: sentence.text).rawValue),
            "priority": .string(priority),
            "details": RuleJSON.string(amount(in: sentence.text)),
            "date_phrase": .string(mention.phrase),
            "evidence": .string(message.evidence(around: sentence.range)),
            "source_message_ids": .array([.string(message.alias)]),
        ])
    }

    private static let leadingNoise = [
        "just a friendly reminder that", "just a reminder that", "friendly reminder that", "reminder that", "just a friendly reminder",
        "just a reminder", "friendly reminder", "reminder", "fyi", "heads up", "don't forget to", "don't forget", "dont forget",
        "please remember to", "remember to", "please", "pls", "hi all", "hi everyone", "hey all", "hi", "hey",
    ]
    private static let trailingNoise = [
        "no later than", "the deadline is", "deadline is", "is due", "are due", "due", "by", "before", "on", "is", "are",
        "until", "and", "at",
    ]

    /// The sentence without its date words and filler: "Permission slips for the zoo trip".
    static func task(_ sentence: RuleSentence, message: ScannedMessage) -> String {
        let tokens = sentence.tokens
        let mentions = message.mentions(in: sentence)
        var kept = tokens.indices.filter { index in !mentions.contains { $0.range.overlaps(tokens[index].range) } }
        func strip(_ phrases: [String], fromStart: Bool) -> Bool {
            while let edge = fromStart ? kept.first : kept.last, !tokens[edge].isWord {
                if fromStart { kept.removeFirst() } else { kept.removeLast() }
            }
            let words = kept.map { tokens[$0].lower }
            for phrase in phrases {
                let cue = RuleTokenizer.words(phrase)
                guard cue.count <= words.count else { continue }
                let edge = fromStart ? Array(words.prefix(cue.count)) : Array(words.suffix(cue.count))
                guard edge == cue else { continue }
                if fromStart { kept.removeFirst(cue.count) } else { kept.removeLast(cue.count) }
                return true
            }
            return false
        }
        while strip(leadingNoise, fromStart: true) {}
        while strip(trailingNoise, fromStart: false) {}
        // Rebuild from the kept tokens: original spacing between neighbours, one space where words were cut.
        var text = ""
        for (position, index) in kept.enumerated() {
            if position > 0 {
                let previous = kept[position - 1]
                text += previous + 1 == index ? message.text.utf16Slice(tokens[previous].range.upperBound..<tokens[index].range.lowerBound) : " "
            }
            text += tokens[index].text
        }
        let cleaned = text.replacingOccurrences(of: " ,", with: ",").collapsedWhitespace
        return cleaned.isEmpty ? "Task" : cleaned.shortened(to: 60).capitalizedFirst
    }

    static func category(_ cues: CueText, text: String) -> DeadlineCategory {
        if cues.first(of: ["doctor", "dentist", "vaccine", "vaccination", "immunization", "medical", "clinic", "pediatrician", "physical", "health form"]) != nil {
            return .medical
        }
        if cues.first(of: ["permission slip", "permission slips", "slip", "form", "forms", "homework", "school", "teacher", "class", "report", "project", "library"]) != nil {
            return .school
        }
        if cues.first(of: ["fee", "fees", "pay", "payment", "dues", "tuition", "cost"]) != nil || text.contains("$") { return .payment }
        if cues.first(of: ["practice", "team", "uniform", "uniforms", "registration", "register", "sign up", "league", "season", "tryouts", "camp"]) != nil {
            return .activity
        }
        return .other
    }

    /// "$12", "$7.50".
    static func amount(in text: String) -> String? {
        guard let dollar = text.firstIndex(of: "$") else { return nil }
        let digits = text[text.index(after: dollar)...].prefix { $0.isNumber || $0 == "." || $0 == "," }
        let value = digits.hasSuffix(".") || digits.hasSuffix(",") ? digits.dropLast() : digits[...]
        return value.isEmpty ? nil : "$" + value
    }
}
