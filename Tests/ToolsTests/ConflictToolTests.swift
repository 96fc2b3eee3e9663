import Core
import Foundation
import Testing
import Tools

/// `check_conflicts` over a real database, for a user in New York (World.now is 2026-03-05 10:00 EST).
@Suite struct ConflictToolTests {
    func conflictTitles(_ result: JSONValue) -> [String] {
        (result["conflicts"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }.sorted()
    }

    @Test func overlappingEventsConflictAndTouchingOnesDoNot() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let dentist = try await world.event(in: family, "Dentist", on: day("2026-03-06"), at: "09:00", until: "10:00")
            try await world.event(in: family, "Piano", on: day("2026-03-06"), at: "09:30", until: "10:30")
            try await world.event(in: family, "Soccer", on: day("2026-03-06"), at: "10:00", until: "11:00")
            try await world.event(in: family, "Bake sale", on: day("2026-03-06"), at: "08:00", until: "09:00")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": .string(dentist.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(conflictTitles(result) == ["Piano"])
            #expect(result["conflicts"]?[0]?["overlap_minutes"] == 30)
            #expect(result["conflicts"]?[0]?["overlap_start"] == "2026-03-06T09:30:00-05:00")
            #expect(result["interval"]?["end"] == "2026-03-06T10:00:00-05:00")

            let proposal = try await call(tool, ["event_id": nil, "date": "2026-03-06", "start_time": "11:00", "end_time": "12:00"])
            #expect(conflictTitles(proposal) == [])
            let touchingBoth = try await call(tool, ["event_id": nil, "date": "2026-03-06", "start_time": "10:30", "end_time": "11:00"])
            #expect(conflictTitles(touchingBoth) == ["Soccer"])
        }
    }

    @Test func allDayEventsConflictWithTimedEventsThatDay() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let tournament = try await world.event(in: family, "Tournament", on: day("2026-03-07"))
            try await world.event(in: family, "Party", on: day("2026-03-07"), at: "14:00")
            try await world.event(in: family, "Late movie", on: day("2026-03-06"), at: "22:00", until: "23:59")
            try await world.event(in: family, "Breakfast", on: day("2026-03-08"), at: "08:00")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": .string(tournament.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(conflictTitles(result) == ["Party"])
            // Two all-day events are day markers, as in the nightly findings: a proposed all-day event conflicts
            // with the party, not with the tournament.
            let proposedAllDay = try await call(tool, ["event_id": nil, "date": "2026-03-07", "start_time": nil, "end_time": nil])
            #expect(conflictTitles(proposedAllDay) == ["Party"])
            #expect(result["conflicts"]?[0]?["type"] == "all_day")
        }
    }

    @Test("too little time to travel between two places is a conflict, as in the nightly findings")
    func travelBetweenPlaces() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let game = try await world.event(in: family, "Game", on: day("2026-03-07"), at: "10:00", until: "12:00", location: "Riverside Park")
            try await world.event(in: family, "Swim", on: day("2026-03-07"), at: "12:15", until: "13:00", location: "the Y")
            try await world.event(in: family, "Picnic", on: day("2026-03-07"), at: "12:15", until: "13:00", location: "Riverside Park, field 3")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": .string(game.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(conflictTitles(result) == ["Swim"])
            #expect(result["conflicts"]?[0]?["type"] == "travel")
            #expect(result["conflicts"]?[0]?["gap_minutes"] == 15)
            #expect(result["conflicts"]?[0]?["overlap_minutes"] == nil)
            let all = try await call(tool, ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])
            // Game-Swim (travel) and Swim-Picnic (overlap); Game-Picnic are at one place.
            #expect(Set(all["pairs"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []) == ["travel", "overlap"])
            #expect(all["pair_count"] == 2)
        }
    }

    @Test func eventsWithoutEndLastSixtyMinutes() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let pickup = try await world.event(in: family, "Pickup", on: day("2026-03-09"), at: "16:00")
            try await world.event(in: family, "Tutor", on: day("2026-03-09"), at: "16:45", until: "17:30")
            try await world.event(in: family, "Dinner", on: day("2026-03-09"), at: "17:00")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": .string(pickup.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(conflictTitles(result) == ["Tutor"])
            #expect(result["conflicts"]?[0]?["overlap_minutes"] == 15)
        }
    }

    @Test func overlapAcrossTheSpringForwardIsComputedOnRealInstants() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            // 01:30 EST (06:30Z) to 03:30 EDT (07:30Z): one real hour.
            let practice = try await world.event(in: family, "Early practice", on: day("2026-03-08"), at: "01:30", until: "03:30")
            // 03:00 EDT is 07:00Z: it starts 30 minutes before practice ends.
            try await world.event(in: family, "Swim", on: day("2026-03-08"), at: "03:00")
            // 03:30 EDT is exactly when practice ends: no conflict.
            try await world.event(in: family, "Stretch", on: day("2026-03-08"), at: "03:30", until: "04:00")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": .string(practice.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(conflictTitles(result) == ["Swim"])
            #expect(result["conflicts"]?[0]?["overlap_start"] == "2026-03-08T03:00:00-04:00")
            #expect(result["conflicts"]?[0]?["overlap_end"] == "2026-03-08T03:30:00-04:00")
            #expect(result["conflicts"]?[0]?["overlap_minutes"] == 30)
            #expect(result["interval"]?["start"] == "2026-03-08T01:30:00-05:00")

            // Without an end, 01:30 EST lasts until 03:30 EDT: on the wall clock (01:30-02:30) it would miss 03:00.
            let feed = try await call(tool, ["event_id": nil, "date": "2026-03-08", "start_time": "01:30", "end_time": nil])
            #expect(conflictTitles(feed) == ["Early practice", "Swim"])
            #expect(feed["interval"]?["end"] == "2026-03-08T03:30:00-04:00")
            // A time in the gap (02:30) is read as 03:30 EDT, after the jump: it touches practice's end.
            let inGap = try await call(tool, ["event_id": nil, "date": "2026-03-08", "start_time": "02:30", "end_time": nil])
            #expect(conflictTitles(inGap) == ["Stretch", "Swim"])
        }
    }

    @Test func findModeReportsEveryUpcomingPairOnce() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let school = try await world.conversation("School", members: [ana])
            let recital = try await world.event(in: family, "Recital", on: day("2026-03-10"), at: "18:00", until: "19:30")
            let meeting = try await world.event(in: school, "PTA meeting", on: day("2026-03-10"), at: "19:00")
            try await world.event(in: family, "Lunch", on: day("2026-03-10"), at: "12:00")
            // Past (before today) and beyond 14 days: never reported.
            try await world.event(in: family, "Old A", on: day("2026-03-01"), at: "09:00")
            try await world.event(in: family, "Old B", on: day("2026-03-01"), at: "09:30")
            try await world.event(in: family, "Far A", on: day("2026-03-25"), at: "09:00")
            try await world.event(in: family, "Far B", on: day("2026-03-25"), at: "09:30")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])
            let pairs = try #require(result["pairs"]?.arrayValue)
            #expect(pairs.count == 1)
            #expect(pairs.first?["first"]?["id"]?.stringValue == recital.text)
            #expect(pairs.first?["second"]?["id"]?.stringValue == meeting.text)
            #expect(pairs.first?["second"]?["conversation"] == "School")
            #expect(pairs.first?["overlap_minutes"] == 30)
            #expect(result["from"] == "2026-03-05")
            #expect(result["through"] == "2026-03-19")
        }
    }

    @Test func rejectsUnclearRequests() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana")
            let tool = CheckConflictsTool(context: try await world.context(for: ana))
            let both = try await failure(tool, ["event_id": .string(UUID().text), "date": "2026-03-06", "start_time": nil, "end_time": nil])
            #expect(both?.contains("either event_id or date") == true)
            let badDate = try await failure(tool, ["event_id": nil, "date": "next friday", "start_time": nil, "end_time": nil])
            #expect(badDate?.hasPrefix("date:") == true)
            let badTime = try await failure(tool, ["event_id": nil, "date": "2026-03-06", "start_time": "7pm", "end_time": nil])
            #expect(badTime?.hasPrefix("start_time:") == true)
            let endOnly = try await failure(tool, ["event_id": nil, "date": "2026-03-06", "start_time": nil, "end_time": "10:00"])
            #expect(endOnly?.hasPrefix("end_time:") == true)
            let malformedID = try await failure(tool, ["event_id": "42", "date": nil, "start_time": nil, "end_time": nil])
            #expect(malformedID?.contains("is not an id") == true)
        }
    }
}
