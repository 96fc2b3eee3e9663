import Foundation
import TestSupport
import PromptKit
import JobsKit
import Testing
import Extractors

@Suite("Price table")
struct PriceTableTests {
    static var repositoryPrompts: URL { RepositoryPaths.root.appendingPathComponent("prompts") }

    func write(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("prices-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("the shipped table prices every model the prompts name")
    func shippedTableCoversThePrompts() throws {
        let table = try PriceTable.load(file: PriceTable.file(inPromptDirectory: Self.repositoryPrompts))
        let library = try PromptLibrary.load(directory: Self.repositoryPrompts)
        for prompt in library.all { #expect(table.price(for: prompt.model) != nil, "no price for \(prompt.model)") }
        #expect(!table.asOf.isEmpty)
    }

    @Test("cost splits cached and fresh prompt tokens, and the Batch API halves it")
    func cost() throws {
        let table = PriceTable(asOf: "2026-11-23", batchMultiplier: 0.5,
                               models: ["gpt-4o-mini": ModelPrice(input: 0.15, cachedInput: 0.075, output: 0.60)])
        let dollars = try #require(table.cost(model: "gpt-4o-mini", prompt: 1_000_000, cachedPrompt: 400_000, completion: 100_000))
        #expect(abs(dollars - (0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.60)) < 1e-12)
        let batch = try #require(table.cost(model: "gpt-4o-mini-2024-07-18", prompt: 1_000_000, cachedPrompt: 0, completion: 0, batch: true))
        #expect(abs(batch - 0.075) < 1e-12)
        #expect(table.cost(model: "unknown-model", prompt: 10, cachedPrompt: 0, completion: 10) == nil)
    }

    @Test("a broken price file names the file, line and field")
    func brokenFile() throws {
        let url = try write("""
            as_of: "2026-11-23"
            models:
              gpt-4o-mini:
                input: cheap
                cached_input: 0.075
                output: 0.60
            """)
        do {
            _ = try PriceTable.load(file: url)
            Issue.record("a non-numeric price loaded")
        } catch {
            #expect(error.description.contains(":4: gpt-4o-mini.input must be a non-negative number"))
        }
    }
}
