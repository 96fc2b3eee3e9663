import Foundation
import Core
import JobsKit
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `scan --batch`, `batch collect` and `batch status` as a child process against the fake server.
@Suite(.serialized) struct BatchCLITests {
    @Test func scanBatchThenCollectThroughTheCLI() async throws {
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let env = ["DATABASE_URL": h.db.connectionURL, "OPENAI_BASE_URL": h.server.baseURL.absoluteString,
                       "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"]
            let prompts = RepositoryPaths.root.appendingPathComponent("prompts").path
            let submit = try await JobsBinary.run(["scan", "--batch", "--provider", "openai", "--prompts", prompts, "--json"], environment: env)
            #expect(submit.code == 0, "\(submit.stderr)")
            let submitted = try JSONValue.parse(submit.stdout)
            #expect(submitted["status"] == "submitted" && submitted["conversations"] == 4)
            #expect(h.server.requests.allSatisfy { $0.path != "/v1/chat/completions" })
            // The default request mode: one combined request per conversation window.
            #expect(submitted["requests"] == 4)
            #expect(try h.uploadedLines().allSatisfy { $0["custom_id"]?.stringValue?.contains(":combined:") == true })

            // `--batch` takes the batch id's first characters, like every id argument.
            let batch = try #require(submitted["batch_id"]?.stringValue?.lowercased())
            let waiting = try await JobsBinary.run(["batch", "collect", "--batch", String(batch.prefix(8)), "--prompts", prompts], environment: env)
            #expect(waiting.code == 0, "\(waiting.stderr)")
            #expect(waiting.stdout.contains("OpenAI says in_progress"))

            h.server.batches.complete()
            let collect = try await JobsBinary.run(["batch", "collect", "--prompts", prompts, "--json"], environment: env)
            #expect(collect.code == 0, "\(collect.stderr)")
            let collected = try #require(try JSONValue.parse(collect.stdout).arrayValue?.first)
            #expect(collected["status"] == "collected" && collected["applied"] == 4)
            #expect(try await h.count("SELECT count(*) AS n FROM calendar_events") == 4)

            let unknown = try await JobsBinary.run(["batch", "collect", "--batch", "ffffffff", "--prompts", prompts], environment: env)
            #expect(unknown.code == 1 && unknown.stderr.contains("no batch id starts with 'ffffffff' in llm_batches"), "\(unknown.stderr)")

            let status = try await JobsBinary.run(["batch", "status"], environment: env)
            #expect(status.code == 0 && status.stdout.contains("collected") && status.stdout.contains("4 applied"))

            let rules = try await JobsBinary.run(["scan", "--batch", "--provider", "rules", "--prompts", prompts], environment: env)
            #expect(rules.code != 0 && rules.stderr.contains("--batch"))
        }
    }

    /// Prices for any server reach `batch collect` too (issue 48 item 3): the tokens at the set price, less the Batch
    /// discount, in its report, `job_runs` and `runs`.
    @Test func batchCollectPricesWithTheBatchDiscount() async throws {
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let env = ["DATABASE_URL": h.db.connectionURL, "OPENAI_BASE_URL": h.server.baseURL.absoluteString,
                       "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error",
                       "MESSAGEAI_PRICE_BATCH_DISCOUNT": "0.5"].merging(ServerPriceTests.prices) { $1 }
            let prompts = RepositoryPaths.root.appendingPathComponent("prompts").path
            let submit = try await JobsBinary.run(["scan", "--batch", "--provider", "openai", "--prompts", prompts, "--json"], environment: env)
            #expect(submit.code == 0, "\(submit.stderr)")
            h.server.batches.complete()
            let collect = try await JobsBinary.run(["batch", "collect", "--prompts", prompts, "--json"], environment: env)
            #expect(collect.code == 0, "\(collect.stderr)")
            let collected = try #require(try JSONValue.parse(collect.stdout).arrayValue?.first)
            let usd = try #require(collected["cost"]?["usd"]?.doubleValue, "\(collect.stdout.prefix(2000))")
            #expect(collected["cost"]?["batch"] == true)

            let row = try #require(try await h.db.pool.query(
                "SELECT prompt_tokens, cached_prompt_tokens, completion_tokens, estimated_cost_usd::float8 AS cost FROM job_runs WHERE kind = 'batch'").first)
            let full = ServerPriceTests.price.cost(prompt: try row.decode("prompt_tokens"), cachedPrompt: try row.decode("cached_prompt_tokens"),
                                                   completion: try row.decode("completion_tokens"))
            #expect(full > 0, "the batch's answers carried tokens")
            #expect(abs(usd - full * 0.5) < 1e-9, "half the set price: \(usd) vs \(full)")
            #expect(abs((try row.decode("cost", as: Double?.self) ?? -1) - usd) < 1e-9, "job_runs records the same figure")

            let text = try await JobsBinary.run(["batch", "collect", "--prompts", prompts], environment: env)
            #expect(text.code == 0)
            let runs = try await JobsBinary.run(["runs", "--kind", "batch"], environment: env)
            #expect(runs.stdout.contains(String(format: "cost $%.4f", usd)), "\(runs.stdout)")
        }
    }
}
