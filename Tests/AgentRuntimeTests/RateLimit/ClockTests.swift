import Core
import Testing
import TestSupport

/// The one clock protocol (`MonotonicClock`): the system clock in production, `TestClock` in every test that waits.
@Suite("Clock")
struct ClockTests {
    @Test("a sleeper on the test clock wakes only when time reaches its deadline")
    func testClockWakesAtTheDeadline() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(9))
        #expect(clock.pendingDeadlines == [.seconds(10)], "9 s in, the sleeper still waits")
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.elapsed == .seconds(10))
        #expect(clock.sleeperCount == 0)
    }

    @Test("a cancelled sleeper throws at once; a clock that advances when slept jumps to each deadline")
    func cancellationAndVirtualTime() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(until: .seconds(60)) }
        #expect(await clock.waitForSleepers(1))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)

        let virtual = TestClock(advancesWhenSlept: true)
        try await virtual.sleep(for: .seconds(30))
        try await virtual.sleep(until: .seconds(10))
        #expect(virtual.elapsed == .seconds(30), "time never moves back")
    }

    @Test("the system clock counts real time from its origin and sleeps at least as long as asked")
    func systemClock() async throws {
        let clock: any MonotonicClock = SystemClock()
        let before = clock.elapsed
        try await clock.sleep(for: .milliseconds(20))
        #expect(clock.elapsed - before >= .milliseconds(20))
    }
}
