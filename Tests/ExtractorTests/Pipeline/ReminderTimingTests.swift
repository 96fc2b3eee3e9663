import Core
@testable import Extractors
import Foundation
import Testing

/// A deadline's reminder: the evening before while that is ahead; once it has passed, the next sensible time before
/// the due time, never none and never in the past.
@Suite struct ReminderTimingTests {
    static let zone = TimeZone(identifier: "America/New_York")!

    static func at(_ iso: String) throws -> Date { try ReferenceInstant.parse(iso) }

    @Test func theEveningBeforeWhileItIsAhead() throws {
        let evening = try Self.at("2026-11-26T18:00:00-05:00")
        let due = try Self.at("2026-11-27T23:59:00-05:00")
        #expect(Deadlines.reminderInstant(evening: evening, due: due, now: try Self.at("2026-11-26T09:00:00-05:00"), zone: Self.zone) == evening)
    }

    @Test func aPassedSlotGetsTheNextQuarterHourBeforeTheDueTime() throws {
        let evening = try Self.at("2026-11-26T18:00:00-05:00")
        let due = try Self.at("2026-11-27T23:59:00-05:00")
        let now = try Self.at("2026-11-26T19:54:00-05:00")
        let at = try #require(Deadlines.reminderInstant(evening: evening, due: due, now: now, zone: Self.zone))
        #expect(at == (try Self.at("2026-11-26T20:00:00-05:00")))
        #expect(at > now && at < due)
        // Two minutes before a quarter: the one after it, so the reminder is never due the moment it is written.
        let close = try #require(Deadlines.reminderInstant(evening: evening, due: due, now: try Self.at("2026-11-26T19:58:00-05:00"), zone: Self.zone))
        #expect(close == (try Self.at("2026-11-26T20:15:00-05:00")))
    }

    @Test func notInTheNightWhenTheMorningStillLeavesTime() throws {
        let evening = try Self.at("2026-11-26T18:00:00-05:00")
        let due = try Self.at("2026-11-27T23:59:00-05:00")
        let night = try #require(Deadlines.reminderInstant(evening: evening, due: due, now: try Self.at("2026-11-26T23:10:00-05:00"), zone: Self.zone))
        #expect(night == (try Self.at("2026-11-27T07:00:00-05:00")))
        // Due at 07:30: the morning is too late, so the next quarter hour.
        let early = try Self.at("2026-11-27T07:30:00-05:00")
        let soon = try #require(Deadlines.reminderInstant(evening: evening, due: early, now: try Self.at("2026-11-26T23:10:00-05:00"), zone: Self.zone))
        #expect(soon == (try Self.at("2026-11-26T23:15:00-05:00")))
    }

    @Test func aPastDueTimeGetsNone() throws {
        let evening = try Self.at("2026-11-26T18:00:00-05:00")
        let due = try Self.at("2026-11-27T08:00:00-05:00")
        #expect(Deadlines.reminderInstant(evening: evening, due: due, now: try Self.at("2026-11-27T08:30:00-05:00"), zone: Self.zone) == nil)
        // Due in ten minutes: a reminder in a minute, before it.
        let now = try Self.at("2026-11-27T07:50:00-05:00")
        let last = try #require(Deadlines.reminderInstant(evening: evening, due: due, now: now, zone: Self.zone))
        #expect(last > now && last < due)
    }
}
