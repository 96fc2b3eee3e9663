import Core
import Foundation
import Tools
import Testing

/// The conflict rule on rows built in memory: overlaps, travel gaps, all-day events and DST, in the user's zone.
@Suite struct ConflictRuleTests {
    static let user = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func date(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }
    static func time(_ iso: String?) -> LocalTime? { iso.flatMap { LocalTime(iso: $0) } }

    static func event(_ n: Int, _ title: String, _ day: String, _ start: String?, _ end: String?, at place: String? = nil) -> ProactiveRows.Event {
        ProactiveRows.Event(userID: user, id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!, title: title,
                            date: date(day), time: time(start), endTime: time(end), location: place)
    }

    static func findings(_ events: [ProactiveRows.Event], now: String, zone: TimeZone = newYork, options: ProactiveOptions = ProactiveOptions()) -> [Finding] {
        var rows = ProactiveRows()
        rows.zones = [user: zone]
        rows.events = events
        return ProactiveEngine(options: options).findings(from: rows, now: ISO8601DateFormatter().date(from: now)!)[user] ?? []
    }

    @Test func overlappingEventsAreOneConflictCitingBoth() throws {
        let game = Self.event(1, "U9 game", "2026-11-28", "10:00", "12:00", at: "Riverside Park")
        let party = Self.event(2, "Emma's party", "2026-11-28", "11:00", "13:00", at: "Jump Zone")
        let found = Self.findings([game, party], now: "2026-11-23T12:00:00Z")
        #expect(found.count == 1)
        let conflict = try #require(found.first)
        #expect(conflict.kind == .conflict)
        #expect(conflict.severity == .high)
        #expect(conflict.citedIDs == [game.id, party.id])
        #expect(conflict.cites.allSatisfy { $0.table == "calendar_events" })
        #expect(conflict.suggestion.hasPrefix("Saturday Nov 28: U9 game (10:00-12:00, Riverside Park) overlaps Emma's party (11:00-13:00, Jump Zone)"))
        // The same pair in the other order is the same subject.
        #expect(Self.findings([party, game], now: "2026-11-23T12:00:00Z").first?.subjectKey == conflict.subjectKey)
    }

    @Test func touchingEventsAtOnePlaceDoNotConflict() throws {
        let a = Self.event(1, "Practice", "2026-11-28", "10:00", "11:00", at: "Riverside Park")
        let b = Self.event(2, "Team photo", "2026-11-28", "11:00", "11:30", at: "riverside  park")
        #expect(Self.findings([a, b], now: "2026-11-23T12:00:00Z").isEmpty)
        let field = Self.event(3, "Team photo", "2026-11-28", "11:10", "11:30", at: "Riverside Park, field 3")
        #expect(Self.findings([a, field], now: "2026-11-23T12:00:00Z").isEmpty, "a field of the park is the park")
        let other = Self.event(4, "Team photo", "2026-11-28", "11:10", "11:30", at: "Riversided")
        #expect(Self.findings([a, other], now: "2026-11-23T12:00:00Z").count == 1)
    }

    @Test func backToBackAtDifferentPlacesWithinTheTravelGapIsATravelConflict() throws {
        let game = Self.event(1, "Game", "2026-11-28", "10:00", "12:00", at: "Riverside Park")
        let party = Self.event(2, "Party", "2026-11-28", "12:15", "14:00", at: "Jump Zone")
        let found = Self.findings([game, party], now: "2026-11-23T12:00:00Z")
        #expect(found.count == 1)
        #expect(found.first?.details["type"] == "travel")
        #expect(found.first?.severity == .medium)
        #expect(found.first?.suggestion.contains("starts 15 minutes later") == true)
        // With a 10-minute gap option, 15 minutes is enough; 45 minutes later is fine with the default 30.
        var short = ProactiveOptions()
        short.travelGap = 10 * 60
        #expect(Self.findings([game, party], now: "2026-11-23T12:00:00Z", options: short).isEmpty)
        let later = Self.event(2, "Party", "2026-11-28", "12:45", "14:00", at: "Jump Zone")
        #expect(Self.findings([game, later], now: "2026-11-23T12:00:00Z").isEmpty)
        // No place known: no travel conflict can be claimed.
        let nowhere = Self.event(2, "Party", "2026-11-28", "12:15", "14:00")
        #expect(Self.findings([game, nowhere], now: "2026-11-23T12:00:00Z").isEmpty)
    }

    @Test func allDayEventsBlockTheirLocalDayOnlyAndNotEachOther() throws {
        let pictureDay = Self.event(1, "Picture day", "2026-11-30", nil, nil)
        let fieldTrip = Self.event(2, "Field trip", "2026-11-30", nil, nil)
        let dentist = Self.event(3, "Dentist", "2026-11-30", "23:30", "23:59", at: "Dr. Chen")
        let nextMorning = Self.event(4, "Night feed", "2026-12-01", "00:15", "01:00", at: "Dr. Chen")
        let found = Self.findings([pictureDay, fieldTrip, dentist, nextMorning], now: "2026-11-23T12:00:00Z")
        #expect(Set(found.map { $0.details["type"] }) == ["all_day"])
        #expect(found.count == 2, "\(found.map(\.suggestion))")
        #expect(found.allSatisfy { $0.citedIDs.contains(dentist.id) && $0.severity == .low })
    }

    @Test func allDayOnAFallBackDayLastsTwentyFiveHours() throws {
        // 2026-11-01 is 25 hours long in New York: 23:30 that night is still inside the all-day event.
        let allDay = Self.event(1, "Tournament", "2026-11-01", nil, nil)
        let late = Self.event(2, "Late call", "2026-11-01", "23:30", "23:45", at: "Home")
        #expect(Self.findings([allDay, late], now: "2026-10-28T12:00:00Z").count == 1)
        let afterMidnight = Self.event(3, "Early call", "2026-11-02", "00:00", "00:30", at: "Home")
        #expect(Self.findings([allDay, afterMidnight], now: "2026-10-28T12:00:00Z").isEmpty)
    }

    @Test func springForwardGapIsReadOnTheWallClock() throws {
        // 2026-03-08 in New York: 02:00-03:00 does not exist. 01:30-03:30 lasts one real hour (until 03:30 EDT),
        // so an event at 03:15 overlaps it and one at 03:30 does not.
        let night = Self.event(1, "Night shift", "2026-03-08", "01:30", "03:30", at: "Hospital")
        let overlapping = Self.event(2, "Call", "2026-03-08", "03:15", "03:45", at: "Hospital")
        let after = Self.event(3, "Breakfast", "2026-03-08", "03:30", "04:00", at: "Hospital")
        let found = Self.findings([night, overlapping, after], now: "2026-03-01T12:00:00Z")
        #expect(found.count == 2, "\(found.map(\.suggestion))")
        #expect(found.contains { $0.citedIDs == [night.id, overlapping.id] })
        #expect(!found.contains { $0.citedIDs == [night.id, after.id] })
        // In UTC (no DST) the night lasts two real hours: 02:30 is inside it there, and is not a time in New York.
        let twoThirty = Self.event(4, "Check", "2026-03-08", "02:30", "02:45", at: "Hospital")
        #expect(Self.findings([night, twoThirty], now: "2026-03-01T12:00:00Z", zone: TimeZone(identifier: "UTC")!).count == 1)
    }

    @Test func theSameEventInTwoChatsIsNotAConflictAndPastEventsAreIgnored() throws {
        let a = Self.event(1, "U9 Game", "2026-11-28", "10:00", "12:00", at: "Riverside Park")
        let b = Self.event(2, "U9 game!", "2026-11-28", "10:00", "12:00", at: "Riverside Park")
        #expect(Self.findings([a, b], now: "2026-11-23T12:00:00Z").isEmpty)
        let c = Self.event(3, "Party", "2026-11-28", "11:00", "13:00", at: "Jump Zone")
        #expect(Self.findings([a, c], now: "2026-11-28T18:30:00Z").isEmpty, "both ended by 13:30 New York time")
    }

}
