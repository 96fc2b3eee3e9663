import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI
import Evaluation

/// Prices for any server (issue 48 item 3): with `MESSAGEAI_PRICE_*` set, a local server's tokens cost the same money
/// in `scan`, `runs`, `assist` and `eval` (and so in the worker's metric, which adds up the runs' recorded costs);
/// without them such a server is "unknown" everywhere, assist included (it used to be priced at gpt-4o-mini rates).
@Suite("prices for any server", .serialized)
struct ServerPriceTests {
    static let price = TokenPrice(input: 1_000, cachedInput: 250, output: 2_000)
    static let prices = ["MESSAGEAI_PRICE_INPUT": "1000", "MESSAGEAI_PRICE_CACHED_INPUT": "250", "MESSAGEAI_PRICE_OUTPUT": "2000"]

    /// Extraction requests get `ScanRequests`' answers; the assistant's runs an answer with nothing to add.
    static func server() throws -> FakeOpenAIServer {
        try FakeOpenAIServer { request in
            request.json?["tools"] != nil
                ? .chat(content: NoRepeatedModelWorkTests.empty.serialized(), usage: FakeUsage(prompt: 300, completion: 40, cached: 100))
                : ScanRequests.answer(request)
        }
    }

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    /// The run's recorded tokens at `price`.
    static func expected(_ db: TestDatabase, run: String) async throws -> (usd: Double, recorded: Double?) {
        let row = try #require(try await db.pool.query(
            "SELECT prompt_tokens, cached_prompt_tokens, completion_tokens, estimated_cost_usd::float8 AS cost FROM job_runs WHERE id = $1::uuid", [run]).first)
        let usd = price.cost(prompt: try row.decode("prompt_tokens"), cachedPrompt: try row.decode("cached_prompt_tokens"),
                             completion: try row.decode("completion_tokens"))
        return (usd, try row.decode("cost"))
    }

    @Test("scan, runs and assist show the same money figure for a priced local server; unpriced, assist is unknown")
    func sameFigureEverywhere() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let server = try Self.server()
            defer { server.stop() }
            let base = ["OPENAI_BASE_URL": server.baseURL.absoluteString]

            let scan = try await JobsBinary.run(["scan", "--json", "--no-prefilter"], db, base.merging(Self.prices) { $1 })
            #expect(scan.code == 0, "\(scan.stderr)")
            let summary = try Self.json(scan.stdout)
            let scanRun = try #require(summary["run_id"]?.stringValue)
            let scanUSD = try #require(summary["cost"]?["usd"]?.doubleValue, "\(scan.stdout.prefix(2000))")
            let scanExpected = try await Self.expected(db, run: scanRun)
            #expect(scanExpected.usd > 0 && abs(scanUSD - scanExpected.usd) < 1e-6, "\(scanUSD) vs \(scanExpected.usd)")
            #expect(abs((scanExpected.recorded ?? -1) - scanUSD) < 1e-6, "job_runs records the same figure")

            let runs = try await JobsBinary.json([RunHistory.Run].self, ["runs", "--kind", "scan"], db)
            #expect(abs((runs.first { $0.id.postgresValue == scanRun }?.costUSD ?? -1) - scanUSD) < 1e-6)
            let runsText = try await JobsBinary.run(["runs", "--kind", "scan"], db)
            #expect(runsText.stdout.contains(String(format: "cost $%.4f", scanUSD)), "\(runsText.stdout)")

            let assist = try await JobsBinary.run(["assist", "--user", "demo", "--json"], db, base.merging(Self.prices) { $1 })
            #expect(assist.code == 0, "\(assist.stderr)")
            let assisted = try Self.json(assist.stdout)
            let assistRun = try #require(assisted["run_id"]?.stringValue)
            let assistUSD = try #require(assisted["cost"]?["usd"]?.doubleValue, "\(assist.stdout.prefix(2000))")
            let assistExpected = try await Self.expected(db, run: assistRun)
            #expect(assistExpected.usd > 0 && abs(assistUSD - assistExpected.usd) < 1e-6, "\(assistUSD) vs \(assistExpected.usd)")
            #expect(abs((assistExpected.recorded ?? -1) - assistUSD) < 1e-6)

            // No price set: the local server is unknown in assist too, never gpt-4o-mini's list price.
            let unpriced = try await JobsBinary.run(["assist", "--user", "demo", "--json"], db, base)
            let cost = try Self.json(unpriced.stdout)["cost"]
            #expect(cost?["usd"] == .null && cost?["estimate"]?.stringValue == "unknown", "\(unpriced.stdout.prefix(1500))")
            #expect(cost?["unknown_reason"]?.stringValue?.contains("MESSAGEAI_PRICE_INPUT") == true)
        }
    }

    @Test("eval prices its requests the same way")
    func evalUsesThePrice() async throws {
        let path = EvalTestSupport.fixturesPath + "/birthday-invite-pending.yaml"
        let server = try FakeOpenAIServer { _ in .chat(content: #"{"events": []}"#, usage: FakeUsage(prompt: 500, completion: 50, cached: 200)) }
        defer { server.stop() }
        var options = EvalTestSupport.options(fixtures: path, server: server, cache: try EvalTestSupport.temporaryDirectory("cache"))
        options.features = [.calendarEvents]
        options.environment.merge(Self.prices) { $1 }
        options.llm = try LLMConfiguration.fromEnvironment(options.environment)
        let main = try #require(try await EvalSession.run(options).report.main)
        let paid = main.cache?.networkUsage ?? main.usage
        #expect(paid.promptTokens > 0)
        let usd = try #require(main.cost?.usd, "\(String(describing: main.cost))")
        #expect(abs(usd - Self.price.cost(prompt: paid.promptTokens, cachedPrompt: paid.cachedPromptTokens, completion: paid.completionTokens)) < 1e-9)
        #expect(main.cost?.line.contains("MESSAGEAI_PRICE_") == true)
    }

    @Test("a price needs input and output together; each is checked like every setting")
    func badPrices() async throws {
        let half = try await JobsBinary.isolated(["runs"], nil, extra: ["MESSAGEAI_PRICE_INPUT": "0.15", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(half.termination == .exit(64) && half.stderr.contains("MESSAGEAI_PRICE_OUTPUT is not valid: expected a price too"), "\(half.stderr)")
        let bad = try await JobsBinary.isolated(["runs"], nil, extra: ["MESSAGEAI_PRICE_OUTPUT": "cheap"])
        #expect(bad.termination == .exit(64) && bad.stderr.contains("MESSAGEAI_PRICE_OUTPUT='cheap' is not valid: expected US dollars per million"), "\(bad.stderr)")
    }
}
