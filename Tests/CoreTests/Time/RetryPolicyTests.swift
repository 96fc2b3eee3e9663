import Synchronization
import Testing
@testable import Core

/// The one retry policy: every caller's waits, attempt bound and time budget come from here.
@Suite("Retry policy: delays, attempt bound, time budget")
struct RetryPolicyTests {
    private struct Flaky: Error {}
    private struct Fatal: Error {}

    @Test("delays grow by the multiplier from the base and stop at the ceiling; without jitter they are exact")
    func delays() {
        let doubling = RetryPolicy(maxAttempts: 9, baseDelay: .milliseconds(250), maxDelay: .seconds(1))
        #expect((1...5).map { doubling.delay(afterAttempt: $0, random: 0) } == [250, 500, 1000, 1000, 1000].map { Duration.milliseconds($0) })
        #expect(doubling.delay(afterAttempt: 10_000) == .seconds(1), "a huge attempt number stays at the ceiling")
        let gentle = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), multiplier: 1.5, maxDelay: .milliseconds(800))
        #expect((1...5).map { gentle.delay(afterAttempt: $0) } == [200, 300, 450, 675, 800].map { Duration.milliseconds($0) })
    }

    @Test("full jitter waits a random share of the exponential delay, never more")
    func jitter() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: .full)
        #expect(policy.delay(afterAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 3, random: 0) == .zero)
        #expect(policy.delay(afterAttempt: 3, random: 7) == .milliseconds(400), "a share above 1 is clamped")
        #expect((0..<50).allSatisfy { _ in policy.delay(afterAttempt: 20) <= .seconds(1) })
    }

    @Test("a retry needs an attempt left and, with a budget, a wait that ends inside it")
    func bounds() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .seconds(1), totalBudget: .seconds(5))
        #expect(policy.allowsRetry(afterAttempt: 2, elapsed: .zero, wait: .zero))
        #expect(!policy.allowsRetry(afterAttempt: 3, elapsed: .zero, wait: .zero), "3 attempts in all")
        #expect(!policy.allowsRetry(afterAttempt: 1, elapsed: .seconds(4), wait: .seconds(1)), "the wait would end at the budget")
        #expect(policy.allowsRetry(afterAttempt: 1, elapsed: .seconds(3), wait: .seconds(1)))
        let unbudgeted = RetryPolicy(maxAttempts: .max, baseDelay: .seconds(1), maxDelay: .seconds(30))
        #expect(unbudgeted.allowsRetry(afterAttempt: 1_000, elapsed: .seconds(86_400), wait: .seconds(30)))
        #expect(RetryPolicy(maxAttempts: 0, baseDelay: .zero, maxDelay: .zero).maxAttempts == 1, "at least the first attempt")
        #expect(RetryPolicy.noRetries.maxAttempts == 1)
    }

    @Test("run retries what the caller calls retryable, waits the policy's delays, and gives up at the attempt bound")
    func runBoundsAttempts() async {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        let waits = Mutex<[Duration]>([])
        let attempts = Mutex<[Int]>([])
        await #expect(throws: Flaky.self) {
            try await policy.run(retryingWhen: { $0 is Flaky }, sleep: { wait in waits.withLock { $0.append(wait) } }) { attempt in
                attempts.withLock { $0.append(attempt) }
                throw Flaky()
            }
        }
        #expect(attempts.withLock { $0 } == [1, 2, 3, 4])
        #expect(waits.withLock { $0 } == [100, 200, 400].map { Duration.milliseconds($0) })
    }

    @Test("run stops at once on an error the caller does not retry, and returns the first success")
    func runStopsAndSucceeds() async throws {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .zero, maxDelay: .zero)
        let calls = Mutex(0)
        await #expect(throws: Fatal.self) {
            try await policy.run(retryingWhen: { $0 is Flaky }, sleep: { _ in }) { _ in
                calls.withLock { $0 += 1 }
                throw Fatal()
            }
        }
        #expect(calls.withLock { $0 } == 1)
        let value = try await policy.run(retryingWhen: { $0 is Flaky }, sleep: { _ in }) { attempt in
            if attempt < 3 { throw Flaky() }
            return attempt * 10
        }
        #expect(value == 30)
    }

    @Test("run starts no retry whose wait would end beyond the time budget")
    func runKeepsTheBudget() async {
        // Waits of 1 s, 2 s, ... against a 1.5 s budget (recorded, not slept): the first fits, the second would not.
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(8), totalBudget: .milliseconds(1500))
        let waits = Mutex<[Duration]>([])
        await #expect(throws: Flaky.self) {
            try await policy.run(retryingWhen: { _ in true }, sleep: { wait in waits.withLock { $0.append(wait) } }) { _ in
                throw Flaky()
            }
        }
        #expect(waits.withLock { $0 } == [.seconds(1)])
    }
}
