package import Foundation

/// Decides which new messages are worth an LLM call. It drops only chatter: a message whose every word is small talk
/// ("lol", "thanks so much!", "omg so cute 😍") or that is only emoji. Everything else reaches the model, because no
/// cue list knows every way a parent commits ("Chens are in, we'll bring potato salad"), answers ("ok", "👍", "me
/// too") or writes in another language ("Wir bringen den Kuchen mit"): a message the filter does not recognise as
/// chatter is kept. A scan that finds nothing but chatter skips the model, which is where the saving is.
package struct PreFilter: Sendable {
    package init() {}

    package func needsModel(_ message: InputMessage, timeZone: TimeZone) -> Bool {
        !Self.isChatter(message.text)
    }

    /// Small talk only: no question mark, no digit, no word outside `chatterWords`, and no emoji that answers
    /// (`answerSymbols`). An empty text is chatter too.
    static func isChatter(_ text: String) -> Bool {
        if text.contains("?") || text.contains("？") { return false }
        if text.unicodeScalars.contains(where: { answerSymbols.contains($0) }) { return false }
        for token in RuleTokenizer.tokenize(text) where token.isWord {
            if token.lower.contains(where: \.isNumber) { return false }
            if !chatterWords.contains(token.lower.replacingOccurrences(of: "’", with: "'")) { return false }
        }
        return true
    }

    /// Emoji that answer a question or volunteer: a thumbs-up to "can you drive?" is a yes.
    static let answerSymbols: Set<Unicode.Scalar> = ["\u{1F44D}", "\u{1F44C}", "\u{2705}", "\u{2714}", "\u{2611}", "\u{1F64B}",
                                                     "\u{270B}", "\u{1F197}", "\u{1F91D}"]

    /// Words that on their own never carry an item: laughter, thanks, praise, greetings and their glue. Answers
    /// ("ok", "yes", "sure", "me too") and anything with a time, a place or a verb of doing are deliberately absent.
    static let chatterWords: Set<String> = [
        "lol", "lolol", "lmao", "lmfao", "rofl", "haha", "hahaha", "hahahaha", "hah", "ha", "hehe", "heh", "jaja", "jajaja",
        "omg", "omfg", "wow", "whoa", "aw", "aww", "awww", "oh", "ooh", "oooh", "yay", "woohoo", "woo", "yayy",
        "cute", "cutest", "adorable", "precious", "love", "loved", "loving", "lovely", "beautiful", "gorgeous", "amazing",
        "awesome", "nice", "great", "sweet", "fun", "funny", "hilarious", "brilliant", "fantastic", "wonderful", "cool",
        "thanks", "thank", "thx", "ty", "tysm", "thnx", "thankyou", "merci", "danke", "gracias", "grazie", "obrigado",
        "obrigada", "congrats", "congratulations", "happy", "birthday", "bday", "hbd",
        "good", "morning", "night", "gm", "gn", "hi", "hello", "hey", "hiya",
        "so", "soo", "sooo", "such", "very", "really", "too", "much", "just", "all", "everyone", "everybody", "guys",
        "ladies", "folks", "y'all", "you", "ya", "u", "it", "this", "that", "these", "those", "them", "is", "was",
        "it's", "that's", "what", "how", "a", "an", "the", "of", "for", "lots", "xo", "xoxo", "x", "xx", "xxx",
        "photo", "photos", "pic", "pics", "picture", "pictures", "video",
    ]

    /// Context messages (before `firstNewIndex`) stay as they are; new chatter is dropped.
    /// When no new message is left, the result has none (`firstNewIndex == messages.count`) and callers skip the model.
    package func filter(_ input: ConversationInput) -> (kept: ConversationInput, skipped: Int) {
        let context = Array(input.messages[..<input.firstNewIndex])
        let fresh = input.messages[input.firstNewIndex...]
        let kept = fresh.filter { needsModel($0, timeZone: input.timeZone) }
        var filtered = ConversationInput(
            conversationID: input.conversationID, name: input.name, isGroup: input.isGroup, participants: input.participants,
            messages: context + kept, firstNewIndex: context.count, timeZone: input.timeZone, now: input.now, viewer: input.viewer)
        // What the night knows besides its messages goes on: the items of earlier nights, the messages deleted since.
        filtered.state = input.state
        filtered.deletedMessageIDs = input.deletedMessageIDs
        return (filtered, fresh.count - kept.count)
    }
}
