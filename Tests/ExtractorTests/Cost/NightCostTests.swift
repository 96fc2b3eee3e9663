import Foundation
import Core
import JobsKit
import Testing
import Extractors

/// The night's cost an operator reads: extraction plus the assistant, unknown (never $0) when any part has no price,
/// and written in JSON with `usd` null and `estimate` "unknown".
@Suite struct NightCostTests {
    @Test func theNightAddsExtractionAndAssistant() throws {
        let night = NightCost(extractionUSD: 0.012, assistantUSD: .some(0.002))
        #expect(night.usd.map { abs($0 - 0.014) < 1e-12 } == true)
        #expect(night.estimate == "$0.0140")
        #expect(night.breakdown == " (extraction $0.0120 + assistant $0.0020)")
        let json = try JSONValue.parse(String(decoding: try JSONEncoder().encode(night), as: UTF8.self))
        #expect(json["estimate"] == "$0.0140" && json["extraction_usd"] == .number(0.012) && json["assisted"] == .bool(true))
    }

    @Test func anUnpricedPartMakesTheNightUnknownNotFree() throws {
        for night in [NightCost(extractionUSD: nil, assistantUSD: .some(0.002)), NightCost(extractionUSD: 0.01, assistantUSD: .some(nil)),
                      NightCost(extractionUSD: nil, assistantUSD: nil)] {
            #expect(night.usd == nil && night.estimate == "unknown")
            let json = try JSONValue.parse(String(decoding: try JSONEncoder().encode(night), as: UTF8.self))
            #expect(json["usd"] == .null && json["estimate"] == "unknown")
        }
        // Without an assistant pass the night is the extraction alone.
        let alone = NightCost(extractionUSD: 0.01, assistantUSD: nil)
        #expect(alone.usd == 0.01 && alone.breakdown.isEmpty)
    }

    @Test func anUnknownRunCostIsWrittenAsNullAndUnknown() throws {
        let unknown = RunCost(model: "mystery-model", unknownReason: "no price for model 'mystery-model'")
        let json = try JSONValue.parse(String(decoding: try JSONEncoder().encode(unknown), as: UTF8.self))
        #expect(json["usd"] == .null && json["estimate"] == "unknown" && json["unknown_reason"] != nil)
        #expect(try JSONDecoder().decode(RunCost.self, from: try JSONEncoder().encode(unknown)) == unknown)
        #expect(RunCost.sum([0.5, nil]) == nil && RunCost.sum([0.5, 0.25]) == 0.75 && RunCost.sum([]) == 0)
    }
}
