import Foundation
import Testing
@testable import Extractors

/// The evidence check's normalisation (issue 15: it ran Foundation's canonical composition on every message, once per
/// feature): its ASCII fast path and the index built once per window give exactly what the old code
/// (`normalizeUnicode`) gives.
@Suite struct EvidenceNormalizeTests {
    static let ascii = [
        "", " ", "   ", "\r\n", "a\r\nb", "A\rB\nC", "\t\u{0B}\u{0C}x  Y \t", "  Trim me  ", "`quoted` and 'single'",
        "\u{1C}\u{1D}\u{1E}\u{1F} separators", "nul\u{0}byte", "del\u{7F}", "Hello, WORLD! 3:30PM @Dr. Chen's", "ALL CAPS\n\nNEXT",
        "tabs\t\tand\u{0B}vt", "{\"json\": [1, 2]} <tag> ~^_|\\",
    ]

    static let unicode = [
        "e\u{301}", "Cafe\u{301} AU LAIT", "Café", "“Quoted” ‘x’ ‚low‛ „low“ ′prime″", "a—b–c−d", "wait…", "😀 👨‍👩‍👧 ❤️",
        "line\u{2028}sep\u{2029}para", "next\u{85}line", "nb\u{A0}sp", "İstanbul", "ΣΊΣΥΦΟΣ", "A\u{301}\u{2028}B",
        "ascii first then emoji 🎉", "´acute´", "Ｆｕｌｌ", "ﬁle", "Ǆ", "\u{301}leading mark", "x\r\n\u{301}y", "\u{3000}ideo\u{3000}",
    ]

    /// `normalizeUnicode` is the code from before the ASCII fast path, unchanged; a few of its answers pinned.
    @Test func normalizeAgreesWithTheUnicodePath() {
        for text in Self.ascii + Self.unicode {
            #expect(Evidence.normalize(text) == Evidence.normalizeUnicode(text), "\(text.debugDescription)")
        }
        #expect(Evidence.normalize("Cafe\u{301} AU LAIT") == "caf\u{E9} au lait")
        #expect(Evidence.normalize("“Quoted” ‘x’") == "\"quoted\" 'x'")
        #expect(Evidence.normalize("a—b–c−d  wait…") == "a-b-c-d wait...")
    }

    @Test func theASCIIPathTakesOnlyASCIIAndAgreesWithTheUnicodePath() {
        for text in Self.ascii {
            #expect(Evidence.normalizeASCII(text) == Evidence.normalizeUnicode(text), "\(text.debugDescription)")
        }
        for text in Self.unicode where !text.unicodeScalars.allSatisfy(\.isASCII) {
            #expect(Evidence.normalizeASCII(text) == nil, "\(text.debugDescription)")
        }
        #expect(Evidence.normalize("  Don't\r\n`GO`  ") == "don't 'go'")
        #expect(Evidence.normalize("") == "")
    }

    @Test func theIndexHoldsEachMessageNormalisedOnce() {
        let texts = Self.ascii + Self.unicode
        let messages = texts.indices.map { i in
            InputMessage(id: "id-\(i)", senderID: "u-1", sentAt: Date(timeIntervalSince1970: 1_772_457_240 + Double(i) * 60), text: texts[i])
        }
        let window = MessageWindow(messages: messages, participants: [Participant(id: "u-1", name: "Maria")])
        let index = EvidenceIndex(window)
        #expect(index.texts == texts.map(Evidence.normalizeUnicode))
        #expect(index.holding("dr. chen's") == [texts.firstIndex(of: "Hello, WORLD! 3:30PM @Dr. Chen's")!])
        #expect(index.holding("\"quoted\" 'x'") == [texts.firstIndex(of: "“Quoted” ‘x’ ‚low‛ „low“ ′prime″")!])
    }
}
