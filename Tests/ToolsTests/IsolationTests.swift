import Core
import Foundation
import Testing
import Tools

/// Ana and Ben each have a private conversation (with Carol) and share one. Every tool bound to Ana, whatever its
/// arguments, must never show Ben's private rows or Ben's per-user rows in the shared conversation.
@Suite struct IsolationTests {
    struct Fixture {
        let world: World
        let ana: UUID
        let ben: UUID
        let anaPrivate: UUID
        let benPrivate: UUID
        let shared: UUID
        /// Ids of rows Ana must never see.
        let benIDs: [UUID]
        let benEvent: UUID
        let benDeadline: UUID
        let benSharedDeadline: UUID
        let anaEvent: UUID
        let anaDeadline: UUID

        static func build(_ world: World) async throws -> Fixture {
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let ben = try await world.user("Ben", timeZone: "America/New_York")
            let carol = try await world.user("Carol")
            let anaPrivate = try await world.conversation("Ana's class", members: [ana, carol])
            let benPrivate = try await world.conversation("Ben's team", members: [ben, carol])
            let shared = try await world.conversation("Shared carpool", members: [ana, ben])
            let at = World.now.addingTimeInterval(-3600)
            let m1 = try await world.message(in: anaPrivate, from: carol, "ANA-VISIBLE class news", at: at)
            let m2 = try await world.message(in: benPrivate, from: carol, "BEN-SECRET team news", at: at)
            let m3 = try await world.message(in: benPrivate, from: ben, "BEN-SECRET reply", at: at.addingTimeInterval(60))
            try await world.message(in: shared, from: ben, "SHARED-VISIBLE who drives?", at: at)
            _ = m1
            let anaEvent = try await world.event(in: anaPrivate, "ANA-VISIBLE concert", on: day("2026-03-10"), at: "18:00")
            let benEvent = try await world.event(in: benPrivate, "BEN-SECRET game", on: day("2026-03-10"), at: "18:00")
            let benEvent2 = try await world.event(in: benPrivate, "BEN-SECRET practice", on: day("2026-03-10"), at: "18:30")
            try await world.event(in: shared, "SHARED-VISIBLE carpool", on: day("2026-03-10"), at: "18:15")
            let benRSVPPrivate = try await world.rsvp(
                for: ben, in: benPrivate, "BEN-SECRET party", eventDate: day("2026-03-12"), deadline: day("2026-03-08"), requestedBy: carol)
            let benRSVPShared = try await world.rsvp(
                for: ben, in: shared, "BEN-SECRET shared rsvp", eventDate: day("2026-03-12"), deadline: day("2026-03-08"), requestedBy: ana)
            try await world.rsvp(for: ana, in: shared, "ANA-VISIBLE shared rsvp", eventDate: day("2026-03-12"), deadline: day("2026-03-08"), requestedBy: ben)
            let anaDeadline = try await world.deadline(for: ana, in: anaPrivate, "ANA-VISIBLE form", due: day("2026-03-09"))
            let benDeadline = try await world.deadline(for: ben, in: benPrivate, "BEN-SECRET fee", due: day("2026-03-09"))
            let benSharedDeadline = try await world.deadline(for: ben, in: shared, "BEN-SECRET shared task", due: day("2026-03-09"))
            let benReminder = UUID()
            try await world.pool.query(
                "INSERT INTO reminders (id, user_id, title, reminder_time) VALUES ($1::uuid, $2::uuid, 'BEN-SECRET reminder', $3)",
                [benReminder, ben, World.now.addingTimeInterval(86_400)])
            return Fixture(
                world: world, ana: ana, ben: ben, anaPrivate: anaPrivate, benPrivate: benPrivate, shared: shared,
                benIDs: [benPrivate, m2, m3, benEvent, benEvent2, benRSVPPrivate, benRSVPShared, benDeadline, benSharedDeadline, benReminder],
                benEvent: benEvent, benDeadline: benDeadline, benSharedDeadline: benSharedDeadline, anaEvent: anaEvent, anaDeadline: anaDeadline)
        }

        /// Fails the test if `result` shows anything of Ben's.
        func expectNoLeak(_ result: JSONValue, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let text = result.serialized()
            #expect(!text.contains("SECRET"), "\(what) leaked a row of Ben's: \(text.prefix(400))", sourceLocation: sourceLocation)
            for id in benIDs {
                #expect(!text.contains(id.text), "\(what) leaked id \(id.text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func unfilteredCallsShowOnlyTheBoundUsersRows() async throws {
        try await World.with { world in
            let f = try await Fixture.build(world)
            let context = try await world.context(for: f.ana)
            let results: [(String, JSONValue)] = [
                ("messages", try await call(GetRecentMessagesTool(context: context), ["conversation_id": nil, "days": 60, "limit": 100])),
                ("events", try await call(GetUpcomingEventsTool(context: context), ["days": 60])),
                ("conflicts", try await call(CheckConflictsTool(context: context), ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])),
                ("rsvps", try await call(GetPendingRSVPsTool(context: context), [:])),
                ("deadlines", try await call(GetUpcomingDeadlinesTool(context: context), ["days": 60])),
                ("reminders", try await call(ListRemindersTool(context: context), ["include_done": true])),
            ]
            for (what, result) in results { f.expectNoLeak(result, what) }
            let all = results.map { $0.1.serialized() }.joined()
            // Ana's own and shared rows are there, so the filters are not simply returning nothing.
            #expect(all.contains("ANA-VISIBLE class news"))
            #expect(all.contains("SHARED-VISIBLE who drives?"))
            #expect(all.contains("ANA-VISIBLE concert"))
            #expect(all.contains("SHARED-VISIBLE carpool"))
            #expect(all.contains("ANA-VISIBLE shared rsvp"))
            #expect(all.contains("ANA-VISIBLE form"))
            // The shared carpool (18:15) conflicts with Ana's concert (18:00); Ben's overlapping events are invisible.
            #expect(results[2].1["pair_count"] == 1)
        }
    }

    @Test func otherUsersIDsBehaveExactlyLikeUnknownIDs() async throws {
        try await World.with { world in
            let f = try await Fixture.build(world)
            let context = try await world.context(for: f.ana)
            let unknown = UUID().text

            func normalized(_ message: String?, _ id: String) -> String? { message?.replacingOccurrences(of: id, with: "<id>") }

            let messages = GetRecentMessagesTool(context: context)
            let forBen = try await failure(messages, ["conversation_id": .string(f.benPrivate.text), "days": 7, "limit": 10])
            let forUnknown = try await failure(messages, ["conversation_id": .string(unknown), "days": 7, "limit": 10])
            #expect(forBen != nil)
            #expect(normalized(forBen, f.benPrivate.text) == normalized(forUnknown, unknown))

            let conflicts = CheckConflictsTool(context: context)
            let benEvent = try await failure(conflicts, ["event_id": .string(f.benEvent.text), "date": nil, "start_time": nil, "end_time": nil])
            let unknownEvent = try await failure(conflicts, ["event_id": .string(unknown), "date": nil, "start_time": nil, "end_time": nil])
            #expect(benEvent != nil)
            #expect(normalized(benEvent, f.benEvent.text) == normalized(unknownEvent, unknown))

            let create = CreateReminderTool(context: context)
            for deadline in [f.benDeadline, f.benSharedDeadline] {
                let arguments: JSONValue = [
                    "title": "Pay the fee", "remind_at": "2026-03-07T09:00:00-05:00", "priority": "high", "deadline_id": .string(deadline.text),
                ]
                let benFailure = try await failure(create, arguments)
                var unknownArguments = arguments.objectValue!
                unknownArguments["deadline_id"] = .string(unknown)
                let unknownFailure = try await failure(create, .object(unknownArguments))
                #expect(benFailure != nil)
                #expect(normalized(benFailure, deadline.text) == normalized(unknownFailure, unknown))
            }
            #expect(try await world.count("SELECT count(*) FROM reminders WHERE user_id = $1::uuid", [f.ana]) == 0)
        }
    }

    @Test func manyArgumentCombinationsNeverLeak() async throws {
        try await World.with { world in
            let f = try await Fixture.build(world)
            let context = try await world.context(for: f.ana)
            let idChoices: [JSONValue] = [nil, "not-an-id", .string(UUID().text)]
                + ([f.anaPrivate, f.shared, f.anaEvent, f.anaDeadline] + f.benIDs).map { .string($0.text) }
            let dayChoices: [JSONValue] = [-5, 0, 1, 7, 60, 100_000]
            var calls = 0
            var successes = 0

            func check(_ what: String, _ body: () async throws -> JSONValue) async throws {
                calls += 1
                do {
                    let result = try await body()
                    successes += 1
                    f.expectNoLeak(result, what)
                } catch let error as ToolError {
                    // Errors may echo the argument, but never describe what the id belongs to.
                    #expect(!error.description.contains("SECRET"), "\(what): \(error)")
                }
            }

            let messages = GetRecentMessagesTool(context: context)
            for id in idChoices {
                for days in dayChoices {
                    for limit in [-1, 0, 3, 100, 10_000] as [JSONValue] {
                        try await check("messages(\(id), \(days), \(limit))") {
                            try await call(messages, ["conversation_id": id, "days": days, "limit": limit])
                        }
                    }
                }
            }
            let events = GetUpcomingEventsTool(context: context)
            let deadlines = GetUpcomingDeadlinesTool(context: context)
            for days in dayChoices {
                try await check("events(\(days))") { try await call(events, ["days": days]) }
                try await check("deadlines(\(days))") { try await call(deadlines, ["days": days]) }
            }
            let conflicts = CheckConflictsTool(context: context)
            for id in idChoices {
                try await check("conflicts(\(id))") {
                    try await call(conflicts, ["event_id": id, "date": nil, "start_time": nil, "end_time": nil])
                }
            }
            for date in ["2026-03-09", "2026-03-10", "2026-03-11"] {
                for start in [nil, "17:00", "18:20", "23:30"] as [JSONValue] {
                    for end in [nil, "19:00"] as [JSONValue] where !(start == nil && end != nil) {
                        try await check("conflicts(\(date) \(start)-\(end))") {
                            try await call(conflicts, ["event_id": nil, "date": .string(date), "start_time": start, "end_time": end])
                        }
                    }
                }
            }
            let reminders = ListRemindersTool(context: context)
            for includeDone in [true, false] {
                try await check("reminders(\(includeDone))") { try await call(reminders, ["include_done": .bool(includeDone)]) }
            }
            let create = CreateReminderTool(context: try await world.context(for: f.ana, maxReminders: 100))
            for (index, id) in idChoices.enumerated() {
                try await check("create_reminder(\(id))") {
                    try await call(create, [
                        "title": .string("Reminder \(index)"), "remind_at": "2026-03-07T09:00:00-05:00", "priority": "low", "deadline_id": id,
                    ])
                }
            }
            // Ana's reminders exist only for no deadline or her own deadline; never for Ben's.
            let linked = try await world.pool.query(
                "SELECT deadline_id FROM reminders WHERE user_id = $1::uuid AND deadline_id IS NOT NULL", [f.ana])
            #expect(try linked.map { try $0.decode("deadline_id", as: UUID.self) } == [f.anaDeadline])
            #expect(try await world.count("SELECT count(*) FROM reminders WHERE user_id = $1::uuid", [f.ben]) == 1)
            #expect(calls > 150)
            #expect(successes > 50)
        }
    }
}
