import Foundation
import Core
import Testing
import Tools

/// `create_reminder` and `list_reminders` (World.now is 2026-03-05 15:00Z, 10:00 in New York).
@Suite struct ReminderToolTests {
    func reminder(_ title: String, at remindAt: String = "2026-03-07T09:00:00-05:00", deadline: UUID? = nil) -> JSONValue {
        ["title": .string(title), "remind_at": .string(remindAt), "priority": "high", "deadline_id": deadline.map { .string($0.text) } ?? nil]
    }

    @Test func theSameReminderTwiceIsOneRow() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let tool = CreateReminderTool(context: try await world.context(for: ana))
            let first = try await call(tool, reminder("Pay  the field trip fee"))
            #expect(first["created"] == true)
            let id = try #require(first["reminder_id"]?.stringValue)
            #expect(first["remind_at"] == "2026-03-07T09:00:00-05:00")

            // Same title up to case and spacing, same minute written in another offset and with seconds.
            let again = try await call(tool, reminder(" pay the FIELD trip   fee ", at: "2026-03-07T14:00:30Z"))
            #expect(again == ["created": false, "reminder_id": .string(id), "reason": "already exists"])

            let rows = try await world.pool.query(
                "SELECT title, created_by, origin, idempotency_key, item_key, prompt_id, prompt_version, model, status FROM reminders WHERE user_id = $1::uuid",
                [ana])
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(try row.decode("title", as: String.self) == "Pay the field trip fee")
            // 'ai' is what the app shows for reminders it did not write; origin says which job wrote it.
            #expect(try row.decode("created_by", as: String.self) == "ai")
            #expect(try row.decode("origin", as: String.self) == "assistant")
            let key = "assistant:\(ana.text):pay the field trip fee:2026-03-07T14:00Z"
            #expect(try row.decode("idempotency_key", as: String.self) == key)
            #expect(try row.decode("item_key", as: String.self) == key)
            #expect(try row.decode("prompt_id", as: String.self) == "assistant.proactive")
            #expect(try row.decode("prompt_version", as: Int.self) == 2)
            #expect(try row.decode("model", as: String.self) == "test-model")
            #expect(try row.decode("status", as: String.self) == "pending")
        }
    }

    @Test func aRunCreatesAtMostItsBudget() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana")
            let tool = CreateReminderTool(context: try await world.context(for: ana))
            for index in 1...3 {
                #expect(try await call(tool, reminder("Task \(index)"))["created"] == true)
            }
            let fourth = try await failure(tool, reminder("Task 4"))
            #expect(fourth?.hasPrefix("reminder limit of 3 per run reached") == true)
            // A duplicate is not a creation: it is still answered after the budget is spent.
            #expect(try await call(tool, reminder("Task 2"))["created"] == false)
            #expect(try await world.count("SELECT count(*) FROM reminders WHERE user_id = $1::uuid", [ana]) == 3)

            // The next run has a budget of its own.
            let nextRun = CreateReminderTool(context: try await world.context(for: ana))
            #expect(try await call(nextRun, reminder("Task 4"))["created"] == true)
        }
    }

    @Test func parallelCallsCannotOvershootTheBudget() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana")
            let tool = CreateReminderTool(context: try await world.context(for: ana, maxReminders: 2))
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<6 {
                    group.addTask { (try? await call(tool, reminder("Parallel \(index)"))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 2)
            #expect(try await world.count("SELECT count(*) FROM reminders WHERE user_id = $1::uuid", [ana]) == 2)
        }
    }

    @Test func rejectsTimesInThePastTooFarAheadOrWithoutOffset() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            let tool = CreateReminderTool(context: try await world.context(for: ana))
            let past = try await failure(tool, reminder("Too late", at: "2026-03-05T09:59:00-05:00"))
            #expect(past?.hasPrefix("remind_at:") == true)
            #expect(past?.contains("in the past") == true)
            let now = try await failure(tool, reminder("Right now", at: "2026-03-05T15:00:00Z"))
            #expect(now?.contains("in the past") == true)
            let far = try await failure(tool, reminder("Next summer", at: "2026-05-05T10:00:00-04:00"))
            #expect(far?.contains("more than 60 days ahead") == true)
            let naive = try await failure(tool, reminder("No offset", at: "2026-03-07T09:00:00"))
            #expect(naive?.contains("has no UTC offset") == true)
            let garbage = try await failure(tool, reminder("Garbage", at: "tomorrow morning"))
            #expect(garbage?.contains("is not an ISO 8601 date-time") == true)
            let empty = try await failure(tool, reminder("   "))
            #expect(empty?.hasPrefix("title:") == true)
            let long = try await failure(tool, reminder(String(repeating: "x", count: 201)))
            #expect(long?.contains("at most 200") == true)
            #expect(try await world.count("SELECT count(*) FROM reminders") == 0)
            // Just inside both bounds is fine.
            #expect(try await call(tool, reminder("Soon", at: "2026-03-05T10:01:00-05:00"))["created"] == true)
            #expect(try await call(tool, reminder("Later", at: "2026-05-04T10:00:00-04:00"))["created"] == true)
        }
    }

    @Test func linksTheUsersOwnDeadlineAndRecordsTheRun() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana")
            let school = try await world.conversation("School", members: [ana])
            let deadline = try await world.deadline(for: ana, in: school, "Permission slip", due: day("2026-03-09"))
            let runID = UUID()
            try await world.pool.query("INSERT INTO job_runs (id, kind) VALUES ($1::uuid, 'assist')", [runID])
            let tool = CreateReminderTool(context: try await world.context(for: ana, runID: runID))
            let result = try await call(tool, reminder("Sign the permission slip", deadline: deadline))
            #expect(result["deadline_id"]?.stringValue == deadline.text)
            let row = try await world.pool.query("SELECT deadline_id, conversation_id, run_id FROM reminders WHERE user_id = $1::uuid", [ana])[0]
            #expect(try row.decode("deadline_id", as: UUID.self) == deadline)
            #expect(try row.decode("conversation_id", as: UUID.self) == school)
            #expect(try row.decode("run_id", as: UUID.self) == runID)
        }
    }

    @Test func listsPendingRemindersAndOptionallyDoneOnes() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "America/New_York")
            for (title, status, hours) in [("Later", "pending", 48.0), ("Sooner", "sent", 2.0), ("Finished", "completed", 1.0)] {
                try await world.pool.query(
                    "INSERT INTO reminders (user_id, title, reminder_time, status) VALUES ($1::uuid, $2, $3, $4)",
                    [ana, title, World.now.addingTimeInterval(hours * 3600), status])
            }
            let tool = ListRemindersTool(context: try await world.context(for: ana))
            let open = try await call(tool, ["include_done": false])
            #expect(ids(open["reminders"], "title") == ["Sooner", "Later"])
            #expect(open["reminders"]?[0]?["remind_at"] == "2026-03-05T12:00:00-05:00")
            #expect(open["reminders"]?[0]?["created_by"] == "user")
            let all = try await call(tool, ["include_done": true])
            #expect(ids(all["reminders"], "title") == ["Finished", "Sooner", "Later"])
        }
    }
}
