@testable import Extractors
import Foundation
import Testing
import TestSupport

/// Evidence alignment: what a model changes when it quotes still aligns, made-up words do not, and the work is
/// bounded whatever the sizes.
@Suite struct EvidenceAlignmentTests {
    static func score(_ quote: String, _ message: String) -> Double {
        var work = 0
        return EvidenceAlignment.score(EvidenceAlignment.Quote(normalized: Evidence.needle(quote)),
                                       in: EvidenceAlignment.Text(normalized: Evidence.normalize(message)), work: &work)
    }

    static let tolerated: [(quote: String, message: String)] = [
        ("I will bring the snacks tomorrow", "I'll bring the snacks tmrw 🎉"),
        ("Please send the forms by Thursday", "pls send the forms by Thurs!!"),
        ("Do not forget your cleats", "Don't forget ur cleats ⚽️"),
        ("Thanks, see you there", "thx see u there"),
        ("Pickup with Sam and Jo at 4:00 PM", "Pickup w/ Sam & Jo at 4pm"),
        ("Practice moved to Wednesday at 4:30 PM", "practice moved to weds at 4:30p"),
        ("Can everyone bring ... by Friday", "Can everyone bring a dish for the potluck by Friday? Thanks!"),
        ("The field trip is … permission slips", "The field trip is on the 12th, please return permission slips"),
        ("Bring a water bottle and sunscreen", "Bring water bottle and sunscreen"),
        ("Game starts at 10 on Saturday", "Game starts at 10 Saturday"),
        ("game starts at the field at 10", "Game starts at field at 10."),
        ("Party is at the park at 2", "Party is at the park at 2!!! 🎈🎈"),
        ("We are going to be late", "we're gonna be late"),
        ("Let me know by tomorrow", "lmk by 2moro"),
        ("Science fair setup is next Monday at the 4 in the gym, bring the poster boards.",
         "Science fair setup is next Monday at 4 in the gym, bring the poster boards."),
    ]

    @Test(arguments: 0..<tolerated.count)
    func misquotesAlign(_ index: Int) {
        let (quote, message) = Self.tolerated[index]
        let score = Self.score(quote, message)
        #expect(score >= GroundingPolicy.alignThreshold, "\(quote) / \(message): \(score)")
    }

    static let refused: [(quote: String, message: String)] = [
        ("Soccer practice is cancelled on Monday", "Swim meet moved to Sunday morning"),
        ("Bring a dish for the potluck", "The bake sale is on Friday"),
        ("Class photos are next Tuesday, wear blue", "Can someone drive the carpool on Tuesday?"),
        ("The field trip costs $20 and is due Friday", "Reminder: field day is Friday, wear sneakers"),
    ]

    @Test(arguments: 0..<refused.count)
    func madeUpWordsDoNotAlign(_ index: Int) {
        let (quote, message) = Self.refused[index]
        let score = Self.score(quote, message)
        #expect(score < GroundingPolicy.alignThreshold, "\(quote) / \(message): \(score)")
    }

    @Test func ellipsisPartsMustBeInOrder() {
        let message = "Bring snacks on Friday and the jerseys go home with the coach"
        #expect(Self.score("Bring snacks ... jerseys go home", message) == 1)
        #expect(Self.score("jerseys go home ... Bring snacks", message) < 1)
    }

    @Test func chatWordsFold() {
        #expect(EvidenceWords.words("i'll b there tmrw w/ snacks & juice 🎉") == ["i", "will", "b", "there", "tomorrow", "with", "snacks", "and", "juice"])
        #expect(EvidenceWords.words("don't dont do not") == ["do", "not", "do", "not", "do", "not"])
        #expect(EvidenceWords.words("4:30p 4pm 4:00 pm the 5th") == ["4", "30", "pm", "4", "pm", "4", "pm", "the", "5"])
        #expect(EvidenceWords.words("it's emma's") == ["it", "emma"])
        #expect(EvidenceWords.words("2moro thurs nxt wk") == ["tomorrow", "thursday", "next", "week"])
    }

    /// A 30,000-character message and a 2,000-character quote: the comparisons counted stay under the stated bound,
    /// which is linear in the quote (times a logarithm of the message), far below the product of the two lengths.
    @Test func workIsBoundedForLongTexts() {
        var generator = SplitMix64(seed: 23)
        let vocabulary = ["the", "bus", "leaves", "at", "pickup", "is", "near", "gym", "bring", "snacks", "to", "field",
                          "we", "will", "practice", "on", "friday", "and", "saturday", "with", "coach", "team", "game"]
        func text(words: Int) -> String {
            (0..<words).map { _ in vocabulary[generator.int(0...(vocabulary.count - 1))] }.joined(separator: " ")
        }
        let message = String(text(words: 6_000).prefix(30_000))
        let quote = String(text(words: 500).prefix(2_000))
        let text = EvidenceAlignment.Text(normalized: Evidence.normalize(message))
        let aligned = EvidenceAlignment.Quote(normalized: Evidence.needle(quote))
        var work = 0
        _ = EvidenceAlignment.score(aligned, in: text, work: &work)
        let bound = EvidenceAlignment.workBound(quoteWords: aligned.wordCount, messageWords: text.words.count)
        #expect(message.count >= 29_000 && quote.count >= 1_900)
        #expect(work > 0 && work <= bound, "work \(work), bound \(bound)")
        #expect(bound * 20 < aligned.wordCount * text.words.count, "the bound \(bound) is not far below quadratic")

        // Four times the message: the work grows by the logarithm's step, not four times.
        let longer = EvidenceAlignment.Text(normalized: Evidence.normalize(message + " " + message + " " + message + " " + message))
        var longerWork = 0
        _ = EvidenceAlignment.score(aligned, in: longer, work: &longerWork)
        #expect(longerWork <= EvidenceAlignment.workBound(quoteWords: aligned.wordCount, messageWords: longer.words.count))
        #expect(Double(longerWork) < 1.5 * Double(work), "work \(work) → \(longerWork) for a message four times longer")
    }

    /// The measurement behind `GroundingPolicy.alignThreshold`: over every sentence of the eval fixtures, each
    /// misquote family's score against its own message, and each sentence of another conversation (in no message
    /// of this one) at its best against any of this one's messages. Printed, and checked to be separated.
    @Test func thresholdSeparatesMisquotesFromInventions() throws {
        let oracles = try OracleFixture.loadDirectory(RepositoryPaths.root.appendingPathComponent("evals/fixtures").path)
        var misquoted: [OracleMisquote: [Double]] = [:]
        var invented: [Double] = []
        var inventedAbove: [String] = []
        let allSentences = oracles.flatMap { o in o.fixture.messages.flatMap { m in OracleMisquote.sentences(m.text).map { (o.fixture.id, $0) } } }
        for oracle in oracles {
            let texts = oracle.fixture.messages.map { EvidenceAlignment.Text(normalized: Evidence.normalize($0.text)) }
            let normalized = oracle.fixture.messages.map { Evidence.normalize($0.text) }
            for (index, message) in oracle.fixture.messages.enumerated() {
                for sentence in OracleMisquote.sentences(message.text) where sentence.split(separator: " ").count >= 3 {
                    for family in OracleMisquote.allCases {
                        guard let edited = family.apply(sentence) else { continue }
                        var work = 0
                        misquoted[family, default: []].append(EvidenceAlignment.score(
                            EvidenceAlignment.Quote(normalized: Evidence.needle(edited)), in: texts[index], work: &work))
                    }
                }
            }
            for (fixture, sentence) in allSentences where fixture != oracle.fixture.id && sentence.split(separator: " ").count >= 5 {
                let needle = Evidence.needle(sentence)
                guard !normalized.contains(where: { $0.contains(needle) }) else { continue }
                let quote = EvidenceAlignment.Quote(normalized: needle)
                var work = 0
                let scores = texts.map { EvidenceAlignment.score(quote, in: $0, work: &work) }
                let best = scores.max() ?? 0
                invented.append(best)
                if best >= GroundingPolicy.alignThreshold, let index = scores.firstIndex(of: best) {
                    inventedAbove.append("'\(sentence)' ~ '\(oracle.fixture.messages[index].text.prefix(120))' \(String(format: "%.2f", best))")
                }
            }
        }
        func quantile(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
        }
        let threshold = GroundingPolicy.alignThreshold
        for family in OracleMisquote.allCases {
            let scores = misquoted[family] ?? []
            print("alignment misquote \(family.rawValue): n \(scores.count) min \(String(format: "%.2f", scores.min() ?? 0)) "
                  + "p1 \(String(format: "%.2f", quantile(scores, 0.01))) p5 \(String(format: "%.2f", quantile(scores, 0.05))) "
                  + "p50 \(String(format: "%.2f", quantile(scores, 0.5))) below threshold \(scores.count { $0 < threshold })")
        }
        let all = misquoted.values.flatMap { $0 }
        print("alignment misquote all: n \(all.count) p1 \(String(format: "%.2f", quantile(all, 0.01))) "
              + "p5 \(String(format: "%.2f", quantile(all, 0.05))) below threshold \(all.count { $0 < threshold })")
        print("alignment invented: n \(invented.count) p50 \(String(format: "%.2f", quantile(invented, 0.5))) "
              + "p95 \(String(format: "%.2f", quantile(invented, 0.95))) p99 \(String(format: "%.2f", quantile(invented, 0.99))) "
              + "max \(String(format: "%.2f", invented.max() ?? 0)) at or above threshold \(invented.count { $0 >= threshold })")
        let histogram = stride(from: 0.0, to: 1.0, by: 0.1).map { low in
            "\(String(format: "%.1f", low)): misquote \(all.count { $0 >= low && $0 < low + 0.1 }) invented \(invented.count { $0 >= low && $0 < low + 0.1 })"
        }
        print("alignment histogram: " + histogram.joined(separator: " | ") + " | 1.0: misquote \(all.count { $0 >= 1 })")
        for line in inventedAbove { print("alignment invented at or above threshold: " + line) }
        #expect(all.count > 200 && invented.count > 200)
        #expect(Double(all.count { $0 >= threshold }) >= 0.97 * Double(all.count))
        #expect(Double(invented.count { $0 < threshold }) >= 0.98 * Double(invented.count))
    }
}
