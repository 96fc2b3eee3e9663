@testable import Extractors
import Foundation
import JobsKit
import Core
import PromptKit
import Testing
import TestSupport
import Evaluation
import NIOConcurrencyHelpers

/// A model that lists more items than a schema's `maxItems` (OpenAI's strict mode does not enforce the caps; a
/// small model repeats itself): the answer is not refused, the first items are kept, the rest are noted as dropped.
@Suite struct OracleOverfullTests {
    /// The oracle's right answer, then copies of its first item until the list is `extra` items over its cap.
    struct OverfullProvider: AnswerProvider {
        let oracle: OracleAnswerProvider
        let extra: Int
        let padded = NIOLockedValueBox(0)

        var name: String { "oracle-overfull" }
        func modelName(for prompt: Prompt) -> String { "oracle-overfull" }

        func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
            var answer = try await oracle.answer(request)
            guard case .object(var object) = answer.json,
                  let (key, list) = object.first(where: { $0.value.arrayValue != nil }), let items = list.arrayValue,
                  let first = items.first,
                  let cap = request.prompt.outputSchema?["properties"]?[key]?["maxItems"]?.integerValue else { return answer }
            let copies = Int(cap) + extra - items.count
            object[key] = .array(items + Array(repeating: first, count: copies))
            padded.withLockedValue { $0 += copies }
            answer.json = .object(object)
            return answer
        }
    }

    @Test func listsOverTheCapKeepTheirFirstItems() async throws {
        let oracles = try OracleFixture.loadDirectory(OracleEvalTests.fixtures)
        let provider = OverfullProvider(oracle: OracleAnswerProvider(fixtures: oracles), extra: 3)
        let engine = try ExtractionEngine(prompts: try ExtractionHarness.prompts(), provider: provider)
        let spec = EvalVariantSpec(id: "oracle-overfull", role: .main, label: "oracle", engine: engine, features: ExtractionFeature.allCases)
        let outcome = await EvalRunner(concurrency: 2).run(spec, fixtures: oracles.map(\.fixture))
        let score = Scorer.score(fixtures: oracles.map(\.fixture), predictions: outcome.predictions)
        #expect(provider.padded.withLockedValue { $0 } > 50, "the provider answered over the caps")
        #expect(outcome.errors.isEmpty, "an answer over a cap is cut, not refused: \(outcome.errors.prefix(3))")
        #expect(score.micro.f1 == 1.0, "the items before the cap are the right ones, kept: F1 \(score.micro.f1)")
    }

    @Test func theCutIsNotedPerItem() throws {
        let schema = try JSONSchema(JSONValue.parse("""
            {"type": "object", "properties": {"events": {"type": "array", "maxItems": 2, "items": {"type": "object",
             "properties": {"ids": {"type": "array", "maxItems": 1, "items": {"type": "string"}}}}}}}
            """))
        let answer = try JSONValue.parse(#"{"events": [{"ids": ["a", "b"]}, {"ids": ["c"]}, {"ids": []}, {"ids": []}]}"#)
        let (json, notes) = AnswerCaps.apply(answer, schema: schema, feature: .calendarEvents)
        #expect(json == (try JSONValue.parse(#"{"events": [{"ids": ["a"]}, {"ids": ["c"]}]}"#)))
        #expect(notes.map(\.message) == [
            "dropped item 3 of 4 at $.events: over the schema's cap of 2 items",
            "dropped item 4 of 4 at $.events: over the schema's cap of 2 items",
            "$.events[0].ids: kept the first 1 of 2 items (the schema's cap)",
        ])
        #expect(notes.filter(\.droppedItem).count == 2)
    }
}
