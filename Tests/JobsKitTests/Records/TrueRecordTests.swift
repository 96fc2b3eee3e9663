import AgentRuntime
@testable import Extractors
import Foundation
import Core
@testable import JobsKit
import Testing
import TestSupport
import Evaluation

/// What records and reports say when a run fails, drops items or uses a model with no price.
@Suite("True records: bounded assistant summaries, drop counts, unknown costs")
struct TrueRecordTests {
    @Test("a run without a valid answer stores why, bounded, never the model's text")
    func failedAssistantSummary() {
        let reason = AgentStopReason.error("the answer does not match the output schema: " + String(repeating: "x", count: 5_000))
        let text = AssistStore.summaryText(output: nil, stopReason: reason)
        #expect(text.count <= AssistStore.maxSummaryCharacters)
        #expect(text.hasPrefix("(no valid answer: error:"))
        let valid = AssistStore.summaryText(output: ["summary": "Soccer at 5"], stopReason: .completed)
        #expect(valid == "Soccer at 5")
    }

    @Test("drops for unknown ids are counted, and the summary never says every item's evidence was cited when some were dropped")
    func groundingCountsUnknownIDDrops() {
        let notes = [
            ExtractionNote(feature: .decisions, kind: .unknownSource, message: "dropped decision 1: it cites only message ids that are not in the conversation ('m99')"),
            ExtractionNote(feature: .decisions, kind: .unknownSource, message: "decision 2: removed cited ids that are not in the conversation ('m98')"),
            ExtractionNote(feature: .decisions, kind: .dropped, message: "dropped decision 3: it cites no message"),
        ]
        let counts = EvalRunner.grounding(notes)
        #expect(counts.droppedUnknownIDs == 1)
        #expect(counts.droppedOther == 1)
        #expect(counts.totalDropped == 2)
        #expect(!counts.isZero)
        #expect(counts.line.contains("dropped 2 (no evidence 0, unknown ids 1, other 1)"))
        #expect(GroundingCounts(exact: 3).line.hasSuffix("dropped 0, model dates kept 0"))
    }

    @Test("grounding counts written before the new fields still decode")
    func oldGroundingDecodes() throws {
        let old = #"{"recited": 1, "dropped": 2, "dates_unconfirmed": 0}"#
        let counts = try JSONDecoder().decode(GroundingCounts.self, from: Data(old.utf8))
        #expect(counts == GroundingCounts(recited: 1, dropped: 2))
    }

    @Test("an unpriced model costs 'unknown' even with no tokens sent (a cached eval); the rules cost nothing")
    func unpricedModelIsUnknown() {
        let prompts = RepositoryPaths.root.appendingPathComponent("prompts")
        let cached = RunCost.estimate(TokenUsage(), model: "gemma-3-270m-local", promptDirectory: prompts, llm: true)
        #expect(cached.usd == nil)
        #expect(cached.line.contains("unknown"))
        let rules = RunCost.estimate(TokenUsage(), model: "rules", promptDirectory: prompts)
        #expect(rules.usd == 0)
    }
}
