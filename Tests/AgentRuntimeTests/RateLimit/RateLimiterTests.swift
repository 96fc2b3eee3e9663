import Testing
@testable import AgentRuntime
import TestSupport

@Suite("Rate limiter: budgets, reconciliation, server headers, bounded and cancellable waits")
struct RateLimiterTests {
    private func waits(_ limiter: RateLimiter, tokens: Int = 0, count: Int) async throws -> [Duration] {
        var waits: [Duration] = []
        for _ in 0..<count { waits.append(try await limiter.acquire(estimatedTokens: tokens).waited) }
        return waits
    }

    @Test func requestsPerMinuteSpacesRequestsOnceTheBurstIsSpent() async throws {
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 2), clock: TestClock(advancesWhenSlept: true))
        // A full bucket allows a burst of two; then one request every 30 s (each call here starts when the last one may go).
        #expect(try await waits(limiter, count: 4) == [.zero, .zero, .seconds(30), .seconds(30)])
    }

    @Test func tokensPerMinuteReserveTheEstimate() async throws {
        let limiter = RateLimiter(limits: RateLimits(tokensPerMinute: 1000), clock: TestClock(advancesWhenSlept: true))
        #expect(try await limiter.acquire(estimatedTokens: 600).waited == .zero)
        // 200 tokens short at 1000/60 per second: 12 s.
        #expect(try await limiter.acquire(estimatedTokens: 600).waited == .seconds(12))
    }

    @Test func finishRefundsAnOverEstimate() async throws {
        let limiter = RateLimiter(limits: RateLimits(tokensPerMinute: 1000), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 900)
        await limiter.finish(permit, usage: Usage(promptTokens: 60, completionTokens: 40))
        // 900 reserved, 100 used: 900 left, so 600 more start at once.
        #expect(try await limiter.acquire(estimatedTokens: 600).waited == .zero)
    }

    @Test func finishChargesAnUnderEstimate() async throws {
        let limiter = RateLimiter(limits: RateLimits(tokensPerMinute: 1000), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 100)
        await limiter.finish(permit, usage: Usage(promptTokens: 700, completionTokens: 300))
        // The whole minute's budget is spent: 300 tokens take 18 s to come back.
        #expect(try await limiter.acquire(estimatedTokens: 300).waited == .seconds(18))
    }

    @Test func retriedAttemptsCountAsRequests() async throws {
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 3), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 0)
        await limiter.finish(permit, usage: nil, attempts: 3)
        #expect(try await limiter.acquire(estimatedTokens: 0).waited == .seconds(20))
    }

    @Test func theServersRemainingCountCapsTheBudget() async throws {
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 100), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 0)
        await limiter.finish(permit, usage: nil, rateLimit: RateLimitInfo(remainingRequests: 1, resetRequests: "1s"))
        // Our bucket had 99 left, the server says 1: one more at once, then 0.6 s apart.
        #expect(try await waits(limiter, count: 2) == [.zero, .milliseconds(600)])
    }

    @Test(arguments: [("2s", Duration.seconds(2)), ("1m30s", .seconds(90)), ("250ms", .milliseconds(250)), ("nonsense", .seconds(1))])
    func anExhaustedLimitHoldsEveryRequestUntilTheReset(reset: String, expected: Duration) async throws {
        let limiter = RateLimiter(limits: RateLimits(), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 10)
        await limiter.finish(permit, usage: nil, rateLimit: RateLimitInfo(remainingTokens: 0, resetTokens: reset))
        #expect(try await limiter.acquire(estimatedTokens: 10).waited == expected)
        #expect(await limiter.stats.exhausted == 1)
    }

    @Test func aWaitLongerThanAllowedFailsAndReturnsTheReservation() async throws {
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 1, maxWait: .seconds(10)), clock: TestClock(advancesWhenSlept: true))
        _ = try await limiter.acquire(estimatedTokens: 0)
        for _ in 0..<2 {
            // Needs 60 s both times: the failed reservation was given back, or the second would need 120 s.
            await #expect(throws: RateLimitError.waitTooLong(needed: .seconds(60), limit: .seconds(10))) {
                try await limiter.acquire(estimatedTokens: 0)
            }
        }
    }

    @Test func aResetBeyondTheMaximumWaitFails() async throws {
        let limiter = RateLimiter(limits: RateLimits(maxWait: .seconds(30)), clock: TestClock(advancesWhenSlept: true))
        let permit = try await limiter.acquire(estimatedTokens: 0)
        await limiter.finish(permit, usage: nil, rateLimit: RateLimitInfo(remainingRequests: 0, resetRequests: "6m0s"))
        await #expect(throws: RateLimitError.waitTooLong(needed: .seconds(360), limit: .seconds(30))) {
            try await limiter.acquire(estimatedTokens: 0)
        }
    }

    @Test func concurrentWaitersAreServedOneAfterAnother() async throws {
        let clock = TestClock()
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 1, maxWait: .seconds(600)), clock: clock)
        let tasks = (0..<4).map { _ in Task { try await limiter.acquire(estimatedTokens: 0).waited } }
        // One goes at once; the others hold consecutive places instead of waking together to compete.
        #expect(await clock.waitForSleepers(3))
        #expect(clock.pendingDeadlines == [.seconds(60), .seconds(120), .seconds(180)])
        clock.advance(by: .seconds(180))
        var waits: [Duration] = []
        for task in tasks { waits.append(try await task.value) }
        #expect(waits.sorted() == [.zero, .seconds(60), .seconds(120), .seconds(180)])
    }

    @Test func aCancelledWaitThrowsAndReturnsItsReservation() async throws {
        let clock = TestClock()
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 1), clock: clock)
        _ = try await limiter.acquire(estimatedTokens: 0)
        let waiting = Task { try await limiter.acquire(estimatedTokens: 0) }
        #expect(await clock.waitForSleepers(1))
        #expect(clock.pendingDeadlines == [.seconds(60)])
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The next request waits 60 s, not 120 s: the cancelled one no longer holds a place.
        let next = Task { try await limiter.acquire(estimatedTokens: 0) }
        #expect(await clock.waitForSleepers(1))
        #expect(clock.pendingDeadlines == [.seconds(60)])
        clock.advance(by: .seconds(60))
        #expect(try await next.value.waited == .seconds(60))
    }

    @Test func aResetArrivingWhileAsleepExtendsTheWait() async throws {
        let clock = TestClock()
        let limiter = RateLimiter(limits: RateLimits(requestsPerMinute: 1), clock: clock)
        let first = try await limiter.acquire(estimatedTokens: 0)
        let waiting = Task { try await limiter.acquire(estimatedTokens: 0) }
        #expect(await clock.waitForSleepers(1))
        await limiter.finish(first, usage: nil, rateLimit: RateLimitInfo(remainingRequests: 0, resetRequests: "90s"))
        clock.advance(by: .seconds(60))
        #expect(await clock.waitForSleepers(1))
        #expect(clock.pendingDeadlines == [.seconds(90)])
        clock.advance(by: .seconds(30))
        #expect(try await waiting.value.waited == .seconds(90))
    }
}

@Suite("Rate limit settings and reset headers")
struct RateLimitSettingsTests {
    @Test(arguments: [
        ("1s", Duration?.some(.seconds(1))), ("6m0s", .seconds(360)), ("20ms", .milliseconds(20)), ("1h2m3.5s", .milliseconds(3_723_500)),
        ("0.5", .milliseconds(500)), ("0s", .zero), ("", nil), ("soon", nil), ("5x", nil), ("-1", nil),
        // Beyond a day, or beyond any number (issue 47 item 1): unreadable, never an overflow.
        ("86401", nil), ("1e300", nil), ("inf", nil), ("99999999999999999999h", nil), ("1e308s", nil),
    ])
    func resetDurations(text: String, expected: Duration?) {
        #expect(RateLimitReset.duration(text) == expected)
    }

    @Test func limitsComeFromTheEnvironmentAndFlagsWin() throws {
        let env = try RateLimits.fromEnvironment(["OPENAI_RPM": " 500 ", "OPENAI_TPM": ""])
        #expect(env.requestsPerMinute == 500)
        #expect(env.tokensPerMinute == nil)
        let flags = try env.overriding(requestsPerMinute: nil, tokensPerMinute: 200_000)
        #expect(flags.requestsPerMinute == 500)
        #expect(flags.tokensPerMinute == 200_000)
    }

    @Test func badSettingsNameTheSettingAndValue() {
        #expect(throws: RateLimitError.invalidSetting(name: "OPENAI_TPM", value: "lots")) {
            try RateLimits.fromEnvironment(["OPENAI_TPM": "lots"])
        }
        #expect(throws: RateLimitError.invalidSetting(name: "--rpm", value: "0")) {
            try RateLimits().overriding(requestsPerMinute: 0, tokensPerMinute: nil)
        }
        #expect(RateLimitError.invalidSetting(name: "OPENAI_RPM", value: "-3").description.contains("OPENAI_RPM must be a positive integer"))
    }
}
