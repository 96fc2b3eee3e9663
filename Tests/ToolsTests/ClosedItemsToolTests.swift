import Core
import Foundation
import Testing
import Tools

/// The assistant's tools read only what the app shows (issue 46, docs/features.md): open rows (`closed_at IS NULL`),
/// reminders not of a closed deadline or a conversation the user left; two rows of one item never conflict.
@Suite("Tools: only open items")
struct ClosedItemsToolTests {
    @Test func closedEventsDeadlinesRSVPsAndTheirRemindersAreNotRead() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let jen = try await world.user("Jen")
            let family = try await world.conversation("Family", members: [ana, jen])
            let open = try await world.event(in: family, "Game", on: day("2026-03-07"), at: "10:00", until: "11:00")
            let moved = try await world.event(in: family, "Party (old time)", on: day("2026-03-07"), at: "10:30", until: "11:30")
            try await world.pool.query("UPDATE calendar_events SET closed_at = now(), closed_reason = 'superseded' WHERE id = $1", [moved])
            let slip = try await world.deadline(for: ana, in: family, "Permission slip", due: day("2026-03-06"))
            let met = try await world.deadline(for: ana, in: family, "Library books", due: day("2026-03-06"))
            try await world.pool.query("UPDATE deadlines SET closed_at = now(), closed_reason = 'met' WHERE id = $1", [met])
            let invite = try await world.rsvp(for: ana, in: family, "Party", eventDate: day("2026-03-08"), deadline: nil, requestedBy: jen)
            let cancelled = try await world.rsvp(for: ana, in: family, "Recital", eventDate: day("2026-03-09"), deadline: nil, requestedBy: jen)
            try await world.pool.query("UPDATE rsvp_tracking SET closed_at = now(), closed_reason = 'cancelled' WHERE id = $1", [cancelled])
            let done = try await world.deadline(for: ana, in: family, "Lunch money", due: day("2026-03-06"), status: "completed")
            for (deadline, title) in [(slip, "Reminder: slip"), (met, "Reminder: books"), (done, "Reminder: lunch money")] {
                try await world.pool.query(
                    """
                    INSERT INTO reminders (user_id, title, reminder_time, created_by, origin, deadline_id, conversation_id)
                    VALUES ($1, $2, '2026-03-05T23:00:00Z', 'ai', 'extractor', $3, $4)
                    """, [ana, title, deadline, family])
            }
            let context = try await world.context(for: ana)

            let events = try await call(GetUpcomingEventsTool(context: context), ["days": 7])
            #expect(ids(events["events"]) == [open.text])
            let deadlines = try await call(GetUpcomingDeadlinesTool(context: context), ["days": 7])
            #expect(ids(deadlines["deadlines"]) == [slip.text])
            let rsvps = try await call(GetPendingRSVPsTool(context: context), [:])
            #expect(ids(rsvps["rsvps"]) == [invite.text])
            let reminders = try await call(ListRemindersTool(context: context), ["include_done": false])
            #expect((reminders["reminders"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue } == ["Reminder: slip"])
            // The overlap with the moved event's old row is gone with it.
            let pairs = try await call(CheckConflictsTool(context: context), ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])
            #expect(pairs["pair_count"] == 0)

            // She leaves: nothing of the conversation is read for her any more.
            try await world.pool.query("DELETE FROM conversation_participants WHERE conversation_id = $1 AND user_id = $2", [family, ana])
            let gone = try await world.context(for: ana)
            #expect(try await call(ListRemindersTool(context: gone), ["include_done": true])["count"] == 0)
            #expect(try await call(GetUpcomingDeadlinesTool(context: gone), ["days": 7])["count"] == 0)
        }
    }

    @Test func twoRowsOfOneItemNeverConflictTwoItemsDo() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let family = try await world.conversation("Family", members: [ana])
            let first = try await world.event(in: family, "Party", on: day("2026-03-07"), at: "14:00", until: "16:00")
            let second = try await world.event(in: family, "Emma's party", on: day("2026-03-07"), at: "15:00", until: "17:00")
            let other = try await world.event(in: family, "Game", on: day("2026-03-07"), at: "15:30", until: "16:30")
            // The first two rows are one tracked item, e1 (the service's row and one the app kept, keyed by the same ref).
            try await world.pool.query("UPDATE calendar_events SET idempotency_key = 'event:' || conversation_id || ':e1' WHERE id = $1", [first])
            try await world.pool.query("UPDATE calendar_events SET idempotency_key = 'app:event:' || conversation_id || ':e1' WHERE id = $1", [second])
            let context = try await world.context(for: ana)
            let result = try await call(CheckConflictsTool(context: context), ["event_id": .string(first.text), "date": nil, "start_time": nil, "end_time": nil])
            #expect(ids(result["conflicts"]) == [other.text], "the game only, not the item's other row")
            let all = try await call(CheckConflictsTool(context: context), ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])
            #expect(all["pair_count"] == 2, "each row of e1 with the game")
        }
    }
}
