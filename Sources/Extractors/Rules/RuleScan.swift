import Core
import Foundation

/// A date or time a message states, as the rules use it: the resolver's value and the words to quote as
/// `date_phrase`, chosen so that the decoder's own re-resolution of those words gives the same value.
struct DateMention: Sendable, Hashable {
    /// Verbatim message text.
    let phrase: String
    /// UTF-16 span in the message.
    let range: Range<Int>
    let date: LocalDate
    let time: LocalTime?
    let endTime: LocalTime?
    let isDeadline: Bool
    /// A clock time with no day ("at 5"): the resolver puts it on the message date.
    let isTimeOnly: Bool
    /// One day of a recurring schedule ("Dan on Tue/Thu", "every Monday"): not a one-off date.
    var isRecurring = false
}

/// One message of the window with everything the rules read from it, computed once.
struct ScannedMessage: Sendable {
    let index: Int
    let message: InputMessage
    let alias: String
    let senderAlias: String?
    let sentDay: LocalDate
    let tokens: [RuleToken]
    let cues: CueText
    let sentences: [RuleSentence]
    let mentions: [DateMention]
    /// Looks like an attempt to steer a model (instructions, JSON): the rules read nothing from it.
    let isSuspicious: Bool

    var text: String { message.text }

    func mentions(in sentence: RuleSentence) -> [DateMention] { mentions.filter { sentence.contains($0.range) } }

    func sentence(containing mention: DateMention) -> RuleSentence? { sentences.first { $0.contains(mention.range) } }

    /// The words just before a mention ("Please RSVP" before "by Friday").
    func wordsBefore(_ mention: DateMention, within sentence: RuleSentence) -> CueText {
        CueText(tokens: sentence.tokens.filter { $0.range.upperBound <= mention.range.lowerBound })
    }

    /// The words to quote as `evidence`: the sentence holding `range` (else the first sentence), at most
    /// `RuleJSON.evidenceLimit` characters, always verbatim message text.
    func evidence(around range: Range<Int>? = nil) -> String {
        let sentence = range.flatMap { range in sentences.first { $0.contains(range) } } ?? sentences.first
        return String((sentence?.text ?? text).prefix(RuleJSON.evidenceLimit))
    }

    /// The sentence that says `cue` (else the first), as `evidence`.
    func evidence(containingCue cue: String?) -> String {
        let sentence = cue.flatMap { cue in sentences.first { $0.cues.contains(cue) } }
        return evidence(around: sentence?.range)
    }

    /// Dates that are not over when the message was sent.
    var upcomingMentions: [DateMention] { mentions.filter { $0.date >= sentDay && !$0.isRecurring } }
}

/// The window as the rules see it.
package struct RuleScan: Sendable {
    let messages: [ScannedMessage]
    let input: ConversationInput
    let window: MessageWindow

    init(window: MessageWindow, input: ConversationInput) {
        self.window = window
        self.input = input
        let resolver = TemporalResolver(timeZone: input.timeZone)
        messages = window.messages.enumerated().map { index, message in
            let tokens = RuleTokenizer.tokenize(message.text)
            let cues = CueText(tokens: tokens)
            return ScannedMessage(
                index: index, message: message,
                alias: window.alias(ofMessage: message.id) ?? "m\(index + 1)",
                senderAlias: window.alias(ofParticipant: message.senderID),
                sentDay: LocalDate(message.sentAt, in: input.timeZone),
                tokens: tokens, cues: cues,
                sentences: RuleSentence.split(message.text, tokens: tokens),
                mentions: Self.mentions(in: message, resolver: resolver),
                isSuspicious: Self.isSuspicious(message.text, cues: cues))
        }
    }

    /// Resolver expressions, with a day followed closely by a bare time ("Saturday, around 10am") joined
    /// into one phrase, which `resolvePhrase` reads as that day at that time.
    static func mentions(in message: InputMessage, resolver: TemporalResolver) -> [DateMention] {
        let text = message.text
        let expressions = resolver.resolve(text, reference: message.sentAt)
        var mentions: [DateMention] = []
        var index = 0
        while index < expressions.count {
            let first = expressions[index]
            if first.grain == .day, index + 1 < expressions.count, isTimeOnly(expressions[index + 1]) {
                let second = expressions[index + 1]
                let gap = text.utf16Slice(first.range.upperBound..<second.range.lowerBound)
                let range = first.range.lowerBound..<second.range.upperBound
                let phrase = text.utf16Slice(range)
                if gap.utf16.count <= 12, !gap.contains(where: { ".!?;\n".contains($0) }),
                   let joined = resolver.resolvePhrase(phrase, reference: message.sentAt),
                   joined.date == first.date, joined.grain == .minute {
                    mentions.append(DateMention(
                        phrase: phrase, range: range, date: joined.date, time: joined.time, endTime: joined.endTime,
                        isDeadline: first.isDeadline || second.isDeadline, isTimeOnly: false))
                    index += 2
                    continue
                }
            }
            mentions.append(DateMention(
                phrase: first.text, range: first.range, date: first.date, time: first.time, endTime: first.endTime,
                isDeadline: first.isDeadline, isTimeOnly: isTimeOnly(first)))
            index += 1
        }
        return mentions.map { mention in
            var mention = mention
            mention.isRecurring = isRecurring(mention.range, in: text)
            return mention
        }
    }

    /// A weekday written as part of a schedule: "every"/"each" before it, or joined to another weekday by "/" or "&"
    /// with no space ("Tue/Thu", "Mon&Wed").
    static func isRecurring(_ range: Range<Int>, in text: String) -> Bool {
        let before = text.utf16Slice(max(0, range.lowerBound - 7)..<range.lowerBound).lowercased()
        if before.hasSuffix("every ") || before.hasSuffix("each ") { return true }
        func weekday(_ word: Substring) -> Bool { DateVocabulary.weekdays[word.lowercased()] != nil }
        let after = text.utf16Slice(range.upperBound..<min(text.utf16.count, range.upperBound + 12))
        if let mark = after.first, "/&".contains(mark), weekday(after.dropFirst().prefix { $0.isLetter }) { return true }
        if let mark = before.last, "/&".contains(mark) {
            let head = text.utf16Slice(max(0, range.lowerBound - 12)..<(range.lowerBound - 1))
            let word = String(head.reversed().prefix { $0.isLetter }.reversed())
            if weekday(Substring(word)) { return true }
        }
        return false
    }

    private static let dayWords: Set<String> = Set(DateVocabulary.weekdays.keys).union(DateVocabulary.months.keys).union([
        "today", "tonight", "tomorrow", "tmrw", "tmr", "yesterday", "weekend", "week", "weeks", "month", "eod", "day", "days",
    ])

    /// A minute-grain expression that names no day ("at 5", "by noon").
    static func isTimeOnly(_ expression: TemporalExpression) -> Bool {
        guard expression.grain == .minute else { return false }
        let tokens = RuleTokenizer.tokenize(expression.text)
        let namesDay = tokens.contains { token in
            dayWords.contains(token.lower) || token.isOrdinal || token.text == "/" || (token.lower.count == 4 && token.lower.allSatisfy(\.isNumber))
        }
        return !namesDay
    }

    private static let injectionCues = [
        "ignore previous instructions", "ignore all previous instructions", "ignore the previous instructions",
        "ignore prior instructions", "ignore all instructions", "ignore your instructions", "ignore the above",
        "disregard previous", "disregard all previous", "disregard the above", "system prompt", "you are now",
        "new instructions", "developer message", "ignore your rules", "ignore the rules", "ignore all rules",
        "ignore your guidelines",
    ]

    static func isSuspicious(_ text: String, cues: CueText) -> Bool {
        cues.first(of: injectionCues) != nil
            || ["{\"", "\":", "```", "<messages", "</messages"].contains { text.contains($0) }
    }
}
