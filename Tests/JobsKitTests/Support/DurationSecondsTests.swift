@testable import JobsKit
import Testing

/// The options hold `Duration`s; SQL still binds seconds. These conversions are where the units change.
@Suite("Duration to SQL seconds")
struct DurationSecondsTests {
    @Test("leases bind whole seconds, backoff fractional seconds, lock timeouts whole milliseconds of at least 1")
    func conversions() {
        #expect(Duration.seconds(600).wholeSeconds == 600)
        #expect(Duration.milliseconds(30_900).wholeSeconds == 30)
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.seconds(30).postgresMilliseconds == "30000ms")
        #expect(Duration.milliseconds(300).postgresMilliseconds == "300ms")
        #expect(Duration.microseconds(10).postgresMilliseconds == "1ms", "0ms would mean no limit at all")
        #expect(RetryBackoff(base: .milliseconds(50), max: .milliseconds(200)).delay(afterAttempt: 2).seconds == 0.1)
    }
}
