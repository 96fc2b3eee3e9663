import Core
import Foundation
import Testing
import Tools

/// The read-only tools for one user in New York (World.now is 2026-03-05 10:00 EST, so today is 2026-03-05).
@Suite struct ReadToolTests {
    @Test func recentMessagesAreNewestFirstAndBounded() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let ben = try await world.user("Ben")
            let class3 = try await world.conversation("Class 3B", members: [ana, ben])
            let direct = try await world.conversation(nil, members: [ana, ben])
            let hour: TimeInterval = 3600
            try await world.message(in: class3, from: ben, "two hours ago", at: World.now - 2 * hour)
            try await world.message(in: direct, from: ben, "one hour ago", at: World.now - hour)
            try await world.message(in: class3, from: ana, String(repeating: "long ", count: 400), at: World.now - 3 * hour)
            try await world.message(in: class3, from: ben, "ten days ago", at: World.now - 240 * hour)
            try await world.message(in: class3, from: ben, "deleted", at: World.now - hour, deleted: true)
            try await world.message(in: class3, from: ben, "after now", at: World.now + hour)
            let tool = GetRecentMessagesTool(context: try await world.context(for: ana))

            let week = try await call(tool, ["conversation_id": nil, "days": 7, "limit": 50])
            let texts = (week["messages"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
            #expect(texts.count == 3)
            #expect(texts.prefix(2) == ["one hour ago", "two hours ago"])
            let long = try #require(texts.last)
            #expect(long.count == 500)
            #expect(long.hasSuffix("…"))
            #expect(week["messages"]?[0]?["sent_at"] == "2026-03-05T09:00:00-05:00")
            #expect(week["messages"]?[0]?["conversation"] == "Chat with Ben")
            #expect(week["messages"]?[0]?["sender"] == "Ben")
            #expect(week["messages"]?[1]?["conversation"] == "Class 3B")

            let month = try await call(tool, ["conversation_id": nil, "days": 30, "limit": 50])
            #expect(month["count"] == 4)
            let clamped = try await call(tool, ["conversation_id": nil, "days": 500, "limit": 0])
            #expect(clamped["days"] == 60)
            #expect(clamped["limit"] == 1)
            #expect(clamped["count"] == 1)
            #expect(clamped["has_more"] == true)
            let one = try await call(tool, ["conversation_id": .string(direct.text), "days": 7, "limit": 10])
            #expect(ids(one["messages"], "text") == ["one hour ago"])
        }
    }

    @Test func upcomingEventsRunFromTodayThroughTheWindow() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            try await world.event(in: family, "Yesterday", on: day("2026-03-04"), at: "09:00")
            try await world.event(in: family, "Today late", on: day("2026-03-05"), at: "20:00", until: "21:00", location: "Gym")
            try await world.event(in: family, "Today all day", on: day("2026-03-05"))
            try await world.event(in: family, "Tomorrow", on: day("2026-03-06"), at: "08:00")
            try await world.event(in: family, "In a week", on: day("2026-03-12"), at: "08:00")
            let tool = GetUpcomingEventsTool(context: try await world.context(for: ana))

            let short = try await call(tool, ["days": 0])
            #expect(ids(short["events"], "title") == ["Today all day", "Today late", "Tomorrow"])
            #expect(short["through"] == "2026-03-06")
            let late = try #require(short["events"]?[1])
            #expect(late["date"] == "2026-03-05")
            #expect(late["time"] == "20:00")
            #expect(late["end_time"] == "21:00")
            #expect(late["location"] == "Gym")
            #expect(late["category"] == "other")
            #expect(late["conversation"] == "Family")
            #expect(short["events"]?[0]?["time"] == .null)
            let week = try await call(tool, ["days": 7])
            #expect(week["count"] == 4)
        }
    }

    @Test func pendingRSVPsComeByDeadlineThenEventDate() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let carol = try await world.user("Carol")
            let school = try await world.conversation("School", members: [ana, carol])
            try await world.rsvp(for: ana, in: school, "No deadline", eventDate: day("2026-03-07"), deadline: nil, requestedBy: carol)
            try await world.rsvp(for: ana, in: school, "Later deadline", eventDate: day("2026-03-08"), deadline: day("2026-03-10"), requestedBy: carol)
            try await world.rsvp(for: ana, in: school, "Sooner deadline", eventDate: day("2026-03-20"), deadline: day("2026-03-06"), requestedBy: nil)
            try await world.rsvp(for: ana, in: school, "Answered", eventDate: day("2026-03-07"), deadline: day("2026-03-06"), requestedBy: carol, responded: true)
            let tool = GetPendingRSVPsTool(context: try await world.context(for: ana))

            let result = try await call(tool, [:])
            #expect(ids(result["rsvps"], "event_name") == ["Sooner deadline", "Later deadline", "No deadline"])
            #expect(result["rsvps"]?[0]?["days_until_deadline"] == 1)
            #expect(result["rsvps"]?[0]?["requested_by"] == .null)
            #expect(result["rsvps"]?[1]?["requested_by"] == "Carol")
            #expect(result["rsvps"]?[2]?["days_until_deadline"] == .null)
            #expect(result["rsvps"]?[2]?["conversation"] == "School")
        }
    }

    @Test func upcomingDeadlinesArePendingAndInsideTheWindow() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let school = try await world.conversation("School", members: [ana])
            let form = try await world.deadline(for: ana, in: school, "Form", due: day("2026-03-06"), at: "08:00", priority: "urgent")
            try await world.deadline(for: ana, in: school, "Fee", due: day("2026-03-09"))
            try await world.deadline(for: ana, in: school, "Done already", due: day("2026-03-06"), status: "completed")
            try await world.deadline(for: ana, in: school, "Overdue", due: day("2026-03-04"))
            try await world.deadline(for: ana, in: school, "Far", due: day("2026-04-30"))
            let tool = GetUpcomingDeadlinesTool(context: try await world.context(for: ana))

            let result = try await call(tool, ["days": 7])
            #expect(ids(result["deadlines"], "task") == ["Form", "Fee"])
            let first = try #require(result["deadlines"]?[0])
            #expect(first["id"]?.stringValue == form.text)
            #expect(first["deadline"] == "2026-03-06")
            #expect(first["deadline_time"] == "08:00")
            #expect(first["priority"] == "urgent")
            #expect(first["category"] == "school")
            #expect(first["days_left"] == 1)
            #expect(try await call(tool, ["days": 365])["count"] == 3)
        }
    }
}
