import AgentRuntime
import Core
import Foundation
import Postgres
import Testing
import Tools

@Suite struct AssistantToolsTests {
    @Test func anUnknownUserIsAClearError() async throws {
        try await World.with { world in
            let stranger = UUID()
            do {
                _ = try await AssistantTools.make(
                    userID: stranger, pool: world.pool, runID: nil, promptID: "p", promptVersion: 1, model: "m", now: World.now)
                Issue.record("tools were built for a user who does not exist")
            } catch let error as ToolContextError {
                #expect(error == .unknownUser(stranger))
                #expect(error.description == "no user with id \(stranger.text)")
            }
        }
    }

    @Test func buildsEveryToolWithAStrictSchema() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana")
            let tools = try await AssistantTools.make(
                userID: ana, pool: world.pool, runID: nil, promptID: "p", promptVersion: 1, model: "m", now: World.now)
            #expect(tools.map(\.name) == [
                "get_recent_messages", "get_upcoming_events", "check_conflicts", "get_pending_rsvps",
                "get_upcoming_deadlines", "list_reminders", "create_reminder",
            ])
            #expect(tools.map(\.name) == AssistantTools.names, "the names options check before any tool exists")
            for tool in tools {
                #expect(tool.strict)
                #expect(tool.description.count > 40, "\(tool.name) needs a description that tells the model what it is for")
                #expect(strictProblems(tool.parametersSchema, at: tool.name) == [])
            }
        }
    }

    @Test func readsTheUsersTimeZoneThenTheDefaultThenUTC() async throws {
        try await World.with { world in
            let ana = try await world.user("Ana", timeZone: "Europe/Paris")
            let ben = try await world.user("Ben")
            #expect(try await world.context(for: ana).timeZone.identifier == "Europe/Paris")
            #expect(try await world.context(for: ana).today == day("2026-03-05"))
            // Foundation calls UTC "GMT"; compare zones, not names.
            #expect(try await world.context(for: ben).timeZone == TimeZone(identifier: "UTC"))
            // The deployment's default (--timezone / MESSAGEAI_TIMEZONE) applies to users without a row only.
            let tokyo = UserTimeZonePolicy(fallback: TimeZone(identifier: "Asia/Tokyo")!)
            #expect(try await ToolContext.userTimeZone(ben, pool: world.pool, zones: tokyo).identifier == "Asia/Tokyo")
            #expect(try await ToolContext.userTimeZone(ana, pool: world.pool, zones: tokyo).identifier == "Europe/Paris")
            // A zone Postgres does not know cannot be stored, so no job meets one later.
            await #expect(throws: PostgresError.self) { try await world.user("Carl", timeZone: "Mars/Olympus_Mons") }
        }
    }

    /// OpenAI strict mode: every object lists all its properties as required and forbids others.
    func strictProblems(_ schema: JSONValue, at path: String) -> [String] {
        guard let object = schema.objectValue else { return [] }
        var problems: [String] = []
        if object["type"] == "object" {
            let properties = object["properties"]?.objectValue
            let names = properties.map { Array($0.keys) } ?? []
            if object["additionalProperties"] != false { problems.append("\(path): additionalProperties is not false") }
            if Set((object["required"]?.arrayValue ?? []).compactMap(\.stringValue)) != Set(names) {
                problems.append("\(path): required does not list every property")
            }
            for (name, property) in properties ?? [:] {
                if property["description"]?.stringValue?.isEmpty ?? true { problems.append("\(path).\(name): no description") }
                problems += strictProblems(property, at: "\(path).\(name)")
            }
        }
        return problems
    }
}

@Suite struct ReminderBudgetTests {
    @Test func budgetReservesAndReleases() async {
        let budget = ReminderBudget(limit: 2)
        #expect(await budget.reserve())
        #expect(await budget.reserve())
        #expect(await !budget.reserve())
        await budget.release()
        #expect(await budget.remaining == 1)
        #expect(await budget.reserve())
    }
}
