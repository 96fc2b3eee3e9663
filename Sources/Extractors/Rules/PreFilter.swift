import Foundation

/// Decides which new messages are worth an LLM call. Most chat ("lol", "thanks!") holds nothing the
/// extractors could report, and a scan that skips it saves tokens. A message is kept when it has a date or
/// time, a question mark, an event noun, or any cue the rules know — including short replies ("yes", "count us
/// in") and agreements ("deal", "+1"), because answers and decisions matter as much as what they answer.
public struct PreFilter: Sendable {
    public init() {}

    public func needsModel(_ message: InputMessage, timeZone: TimeZone) -> Bool {
        let text = message.text
        if Self.containsQuestionOrPlusOne(text) { return true }
        let cues = CueText(text)
        if cues.first(of: RuleCues.prefilter) != nil { return true }
        // Any event noun ("swimming gala", "picture day") may be a plan the model should see.
        if Self.eventNouns.contains(where: cues.contains) { return true }
        return !TemporalResolver(timeZone: timeZone).resolve(text, reference: message.sentAt).isEmpty
    }

    /// The event nouns as cue phrases, joined once instead of once per message.
    static let eventNouns = EventVocabulary.nouns.map { $0.words.joined(separator: " ") }

    /// Whether the text has "?" or "+1": byte-wise for ASCII text (where any search gives the same answer), through
    /// Foundation's `contains` as before for any other text.
    static func containsQuestionOrPlusOne(_ text: String) -> Bool {
        var text = text
        let ascii: Bool? = text.withUTF8 { bytes in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            guard !bytes.contains(UInt8(ascii: "?")) else { return true }
            guard bytes.count >= 2 else { return false }
            for i in 0..<(bytes.count - 1) where bytes[i] == UInt8(ascii: "+") && bytes[i + 1] == UInt8(ascii: "1") { return true }
            return false
        }
        return ascii ?? (text.contains("?") || text.contains("+1"))
    }

    /// Context messages (before `firstNewIndex`) stay as they are; new messages without any cue are dropped.
    /// When no new message is left, the result has none (`firstNewIndex == messages.count`) and callers skip the model.
    public func filter(_ input: ConversationInput) -> (kept: ConversationInput, skipped: Int) {
        let context = Array(input.messages[..<input.firstNewIndex])
        let fresh = input.messages[input.firstNewIndex...]
        let kept = fresh.filter { needsModel($0, timeZone: input.timeZone) }
        let filtered = ConversationInput(
            conversationID: input.conversationID, name: input.name, isGroup: input.isGroup, participants: input.participants,
            messages: context + kept, firstNewIndex: context.count, timeZone: input.timeZone, now: input.now, viewer: input.viewer)
        return (filtered, fresh.count - kept.count)
    }
}
