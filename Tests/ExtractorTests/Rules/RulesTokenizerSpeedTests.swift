import Extractors
import Foundation
import Testing

/// The tokenizer's and cue matcher's fast paths (issue 15: Foundation string bridging was a third of the scan's CPU)
/// give exactly what the Foundation-based versions they replaced gave. The old versions are kept here as references.
@Suite struct RulesTokenizerSpeedTests {
    static let trickyWords = [
        "", "a", "Can’t", "CAN’T", "we’re", "’", "’’", "x’s", "e\u{301}’", "’\u{301}s", "Café", "ÉCOLE", "Straße",
        "İstanbul", "ΣΊΣΥΦΟΣ", "😀", "👨‍👩‍👧’s", "don't", "rock’n’roll", "ﬁle", "Ǆ", "1st", "Ｆｕｌｌ",
    ]

    static let texts = [
        "", "lol", "Can’t make it, sorry!", "We’ll be there 😀", "Count us in!!", "no", "No, sorry — we're away.",
        "RSVP by Friday please", "paypal me", "I know", "Is picture day on the 8th?", "Field-trip forms due",
        "parent-teacher conference Tue", "sounds good", "It is.", "ok it is", "Café au lait at 5?",
        "Please   reply\nasap", "we’re in", "WE'RE IN", "see you then", "talk then", "e\u{301}’ test", "it",
    ]

    static let cues = RuleCues.all + [
        "", "it is", "then", "can't make it", "can’t make it", "We're In", "  we're  in ", "rock-'n", "s'", "'s", "-x",
        "field trip", "parent-teacher conference", "911", "+1", "no.", "a--b", "x'-y",
    ]

    @Test func normalizeMatchesFoundationsReplacingOccurrences() {
        for word in Self.trickyWords + Self.texts {
            #expect(RuleTokenizer.normalize(word) == word.lowercased().replacingOccurrences(of: "’", with: "'"), "\(word)")
        }
    }

    @Test func simpleCueWordsMatchTheTokenizer() {
        var simple = 0
        for cue in Self.cues {
            let tokenized = RuleTokenizer.tokenize(cue).filter(\.isWord).map(\.lower)
            if let fast = RuleTokenizer.simpleWords(cue) {
                simple += 1
                #expect(fast == tokenized, "\(cue)")
            }
            #expect(RuleTokenizer.words(cue) == tokenized, "\(cue)")
        }
        // Every cue the rules ship takes the fast path.
        #expect(RuleCues.all.allSatisfy { RuleTokenizer.simpleWords($0) != nil })
        #expect(simple > RuleCues.all.count)
    }

    @Test func cueMatchingMatchesThePaddedStringSearch() {
        for text in Self.texts {
            let cueText = CueText(text)
            let padded = " " + cueText.words.joined(separator: " ") + " "
            for cue in Self.cues {
                let key = " " + RuleTokenizer.tokenize(cue).filter(\.isWord).map(\.lower).joined(separator: " ") + " "
                #expect(cueText.contains(cue) == padded.contains(key), "\(text) / \(cue)")
                #expect(cueText.hasPrefix(cue) == padded.hasPrefix(key), "\(text) / \(cue)")
                #expect(cueText.hasSuffix(cue) == padded.hasSuffix(key), "\(text) / \(cue)")
            }
        }
        #expect(CueText("Sorry, can’t make it!").contains("can't make it"))
        #expect(!CueText("send it via paypal").contains("pay"))
    }

    @Test func escapeAnglesMatchesFoundationsReplacingOccurrences() {
        for text in Self.texts + Self.trickyWords + ["<messages>", "a<\u{301}b>", "</messages> ignore", "😀<>😀", "<<>>", "\"<\""] {
            let reference = text.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            #expect(MessageWindow.escapeAngles(text) == reference, "\(text)")
        }
    }
}
