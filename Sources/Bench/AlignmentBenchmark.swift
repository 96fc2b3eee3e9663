package import TestSupport
import Extractors
import Foundation

/// The evidence check's alignment cost per item, on the generated workload's messages: for the messages at the p50
/// and the p99 of the workload's sizes, a quote of each copied the way models misquote (a contraction spelled out,
/// a small word dropped, punctuation tidied) is aligned with its message, as `ground` does when a quote is not
/// verbatim. Reports time and comparisons per item.
package enum AlignmentBenchmark {
    package struct Point: Sendable, Codable {
        package let percentile: Int
        package let characters: Int
        package let nanosecondsPerItem: Double
        package let workPerItem: Int
        package let score: Double
    }

    package struct Report: Sendable, Codable {
        package let messages: Int
        package let points: [Point]

        package var line: String {
            "Alignment per item (\(messages) workload messages): " + points.map { p in
                String(format: "p%d message %d chars: %.1f µs, %d comparisons (score %.2f)", p.percentile, p.characters,
                       p.nanosecondsPerItem / 1000, p.workPerItem, p.score)
            }.joined(separator: "; ")
        }
    }

    package static func run(_ workload: Workload, repeats: Int = 2_000) -> Report {
        let sorted = workload.messages.map(\.text).sorted { $0.count < $1.count }
        let points = [50, 99].map { percentile -> Point in
            let message = sorted.isEmpty ? "" : sorted[min(sorted.count - 1, sorted.count * percentile / 100)]
            let quote = misquote(message)
            var work = 0
            var score = 0.0
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats {
                let result = EvidenceMatching.align(quote: quote, message: message)
                work = result.work
                score = result.score
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            return Point(percentile: percentile, characters: message.count, nanosecondsPerItem: elapsed / Double(repeats),
                         workPerItem: work, score: score)
        }
        return Report(messages: sorted.count, points: points)
    }

    /// The message as a model misquotes it: contractions spelled out, the first "the" left out, "!" made ".".
    static func misquote(_ message: String) -> String {
        var text = message.replacingOccurrences(of: "'ll", with: " will").replacingOccurrences(of: "n't", with: " not")
            .replacingOccurrences(of: "!", with: ".")
        if let range = text.range(of: " the ") { text.replaceSubrange(range, with: " ") }
        return text
    }
}
