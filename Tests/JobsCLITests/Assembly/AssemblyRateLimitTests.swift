import AgentRuntime
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI
import Evaluation

/// Every service the assembly builds that calls a model asks the assembly's one rate limiter first: extract and the
/// worker (which had none before issue 39), the scan and its proactive pass, the assistant, and eval's requests that
/// miss its answer cache. Run through the same
/// `Assembly.withServices` the commands call, against a real database and a scripted server.
@Suite("Assembly: one rate limiter for every command that calls a model")
struct AssemblyRateLimitTests {
    /// Settings pointing at `server` and `db`, as the binary reads them; per-feature mode so one conversation makes
    /// several requests (a limit of one a minute must then delay some).
    static func assembly(_ server: FakeOpenAIServer, _ db: TestDatabase, requestsPerMinute: Int = 1) throws -> Assembly {
        var flags = Settings.Flags()
        flags.provider = .openai
        flags.prompts = WorkerHarness.promptsPath
        flags.perFeature = true
        let environment = ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": "sk-test-assembly",
                           "DATABASE_URL": db.connectionURL, "OPENAI_RETRY_BUDGET_SECONDS": "30"]
        let settings = try Settings(environment: environment, flags: flags)
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: requestsPerMinute, maxWait: .seconds(3600)), clock: TestClock(advancesWhenSlept: true))
        return Assembly(settings: settings, limiter: limiter)
    }

    /// The limiter behind a command's model client: the assembly wraps it as metered(rate limited(client)).
    static func limiter(of client: (any ChatCompleting)?) -> RateLimiter? {
        ((client as? MeteredChatClient)?.inner as? RateLimitedClient)?.limiter
    }

    @Test func extractAsksTheLimiterForEveryRequest() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let assembly = try Self.assembly(server, db)
            let summary = try await assembly.withServices { services in
                try await services.extract().run(conversationID: WorkerHarness.conversations.classGroup, features: FeatureRegistry.shipping.ids,
                                                 dryRun: true, now: WorkerHarness.now)
            }
            let stats = await assembly.limiter.stats
            #expect(server.requests.count >= 2, "one request per feature and window")
            #expect(stats.granted == server.requests.count, "every request went through the limiter")
            #expect(stats.delayed >= 1, "one a minute: the second request waited")
            #expect(summary.conversationID == WorkerHarness.conversations.classGroup)
        }
    }

    @Test func theWorkersExtractRequestsAskTheLimiter() async throws {
        try await WorkerHarness.withDemo { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let assembly = try Self.assembly(server, db)
            let (id, _) = try await JobRequestQueue(pool: db.pool).enqueueOnce(.extract, id: WorkerHarness.conversations.carpool)
            let summary = try await assembly.withServices { services in
                let worker = try services.worker(WorkerHarness.options(once: true), features: FeatureRegistry.shipping.ids)
                // The worker's assistant (assist requests) talks through the same limiter.
                #expect(Self.limiter(of: worker.handler.assist?.client) === assembly.limiter)
                return try await worker.run()
            }
            #expect(summary.done == 1, "request \(id)")
            let stats = await assembly.limiter.stats
            #expect(server.requests.count >= 2)
            #expect(stats.granted == server.requests.count)
            #expect(stats.delayed >= 1)
        }
    }

    @Test func theScanAndItsProactivePassShareTheLimiter() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let assembly = try Self.assembly(server, db)
            try await assembly.withServices { services in
                let scan = try services.scan(ScanOptions(), assist: true)
                #expect(Self.limiter(of: (scan.engine.provider as? LLMAnswerProvider)?.client) === assembly.limiter)
                #expect(Self.limiter(of: scan.proactive?.assistant?.client) === assembly.limiter)
                #expect(try services.scan(ScanOptions(), assist: false).proactive == nil)
            }
        }
    }

    @Test("eval: requests that miss its answer cache ask the assembly's limiter; cache hits take no grant")
    func evalAsksTheLimiterOnlyForRequestsThatReachTheServer() async throws {
        let labelled = LabelledAnswers(try EvalTestSupport.realFixtures())
        let server = try FakeOpenAIServer { labelled.reply($0) }
        defer { server.stop() }
        var flags = Settings.Flags()
        flags.provider = .openai
        flags.prompts = EvalTestSupport.promptsPath
        let settings = try Settings(environment: ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": EvalTestSupport.apiKey],
                                    flags: flags)
        // 30 a minute: the fixtures need more, so some requests wait (on the virtual clock).
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 30, maxWait: .seconds(3600)), clock: TestClock(advancesWhenSlept: true))
        let assembly = Assembly(settings: settings, limiter: limiter)
        var options = assembly.evalOptions()
        #expect(options.limiter === limiter)
        options.fixturesPath = EvalTestSupport.fixturesPath
        options.cacheDirectory = try EvalTestSupport.temporaryDirectory("limited-cache")

        let first = try await EvalSession.run(options)
        let sent = server.requests.count
        let afterFirst = await limiter.stats
        #expect(sent > 30)
        #expect(afterFirst.granted == sent, "every request sent asked the limiter, and only those")
        #expect(afterFirst.delayed >= 1, "over 30 requests at 30 a minute: some waited")
        #expect(first.report.main?.cache?.misses == sent)

        let second = try await EvalSession.run(options)
        #expect(server.requests.count == sent, "the second run is all cache hits")
        #expect(second.report.main?.cache?.hits == sent)
        #expect(await limiter.stats.granted == afterFirst.granted, "a cache hit takes no grant")
        #expect(second.report.main?.score.micro.f1 == first.report.main?.score.micro.f1)
    }

    @Test("without a limiter given, the assembly's takes the settings' limits: the same for every command")
    func theLimiterTakesTheSettingsLimits() throws {
        var flags = Settings.Flags()
        flags.tpm = 9_000
        let assembly = Assembly(settings: try Settings(environment: ["OPENAI_RPM": "7", "OPENAI_TPM": "100"], flags: flags))
        #expect(assembly.limiter.limits.requestsPerMinute == 7)
        #expect(assembly.limiter.limits.tokensPerMinute == 9_000, "--tpm overrides OPENAI_TPM")
    }
}
