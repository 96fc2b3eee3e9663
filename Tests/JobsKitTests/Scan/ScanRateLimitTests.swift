import AgentRuntime
import Foundation
import JobsKit
import TestSupport
import Testing

@Suite("Scan: shared rate limiter")
struct ScanRateLimitTests {
    @Test func everyRequestOfAScanGoesThroughTheSharedLimiter() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 4, active: 4, newMessages: 3)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            // 20 requests against 10 a minute: the burst of 10 goes at once, the rest wait their turn.
            let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 10, maxWait: .seconds(3600)), clock: TestClock(advancesWhenSlept: true))
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server, limiter: limiter))

            #expect(summary.failed == 0)
            #expect(summary.conversations == 4)
            let stats = await limiter.stats
            #expect(stats.granted == 20)
            #expect(stats.granted == server.requests.count)
            #expect(stats.delayed >= 1)
            #expect(stats.totalWait >= .seconds(6))
        }
    }

    @Test func theCLIRefusesAnInvalidLimitBeforeScanning() async throws {
        let flag = try ScanChild.start(["scan", "--provider", "openai", "--rpm", "0"], environment: ["OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(try await flag.waitForExit(timeout: 60).code != 0)
        #expect(flag.stderr.contains("--rpm must be a positive integer"), "stderr: \(flag.stderr)")

        let env = try ScanChild.start(["scan", "--provider", "openai"], environment: ["OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_TPM": "lots"])
        #expect(try await env.waitForExit(timeout: 60).code == 64, "a configuration error")
        #expect(env.stderr.contains("OPENAI_TPM='lots' is not valid: expected tokens per minute, a positive integer"), "stderr: \(env.stderr)")
    }
}
