import Testing
@testable import Core

/// The package's one conversion between `Duration` and numbers: SQL binds seconds, logs milliseconds, NIO nanoseconds.
@Suite("Duration conversions")
struct DurationConversionsTests {
    @Test("seconds keep the fraction; whole seconds and milliseconds drop it; nanoseconds are exact")
    func readings() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.seconds(600).wholeSeconds == 600)
        #expect(Duration.milliseconds(30_900).wholeSeconds == 30)
        #expect(Duration.microseconds(2_999).wholeMilliseconds == 2)
        #expect(Duration.seconds(2).wholeNanoseconds == 2_000_000_000)
        #expect(Duration.nanoseconds(1_500).wholeNanoseconds == 1_500)
    }

    @Test("seconds become milliseconds rounded as the caller says: up for a wait that must not end early")
    func fromSeconds() {
        #expect(Duration.milliseconds(ofSeconds: 0.0011, rounding: .up) == .milliseconds(2))
        #expect(Duration.milliseconds(ofSeconds: 0.0019, rounding: .towardZero) == .milliseconds(1))
        #expect(Duration.milliseconds(ofSeconds: 0.0015, rounding: .toNearestOrAwayFromZero) == .milliseconds(2))
        #expect(Duration.milliseconds(ofSeconds: 90, rounding: .up) == .seconds(90))
    }

    @Test("a Postgres timeout is whole milliseconds and never 0, which would mean no limit at all")
    func postgresSetting() {
        #expect(Duration.seconds(30).postgresMilliseconds == "30000ms")
        #expect(Duration.milliseconds(300).postgresMilliseconds == "300ms")
        #expect(Duration.microseconds(10).postgresMilliseconds == "1ms")
    }
}
