import AgentRuntime
import Core
import Foundation
import Postgres
import TestSupport
import Testing
import Tools

/// Isolation over generated data: many users in overlapping conversations (seeded), every tool called with random
/// arguments including other users' ids. No result shows, and no write touches, a row the bound user may not see.
@Suite("Reliability: generated isolation")
struct GeneratedIsolationTests {
    static let now = FixedTime.wednesdayNoon
    static let seed: UInt64 = 7_321

    /// One generated row: its id, the conversation it lives in, the user it belongs to (per-user rows), and the
    /// unique token in its text.
    struct Row {
        let id: UUID
        let conversation: Int
        let owner: UUID?
        let token: String
    }

    struct Dataset {
        var users: [UUID] = []
        var conversations: [UUID] = []
        var conversationTokens: [String] = []
        var members: [[UUID]] = []
        var messages: [Row] = []
        var events: [Row] = []
        var rsvps: [Row] = []
        var deadlines: [Row] = []
        var reminders: [Row] = []

        var allRows: [Row] { messages + events + rsvps + deadlines + reminders }

        func visible(to user: UUID) -> Set<Int> { Set(members.indices.filter { members[$0].contains(user) }) }

        /// Ids and tokens `user` may see: their conversations and everything in them, but per-user rows only their own.
        func allowed(for user: UUID) -> (ids: Set<UUID>, tokens: Set<String>) {
            let mine = visible(to: user)
            var ids = Set(mine.map { conversations[$0] })
            var tokens = Set(mine.map { conversationTokens[$0] })
            for index in mine { ids.formUnion(members[index]) }
            for row in messages + events where mine.contains(row.conversation) { ids.insert(row.id); tokens.insert(row.token) }
            for row in rsvps + deadlines where mine.contains(row.conversation) && row.owner == user { ids.insert(row.id); tokens.insert(row.token) }
            for row in reminders where row.owner == user { ids.insert(row.id); tokens.insert(row.token) }
            return (ids, tokens)
        }
    }

    /// Users, conversations of 2 to 5 members, and messages, events, RSVPs, deadlines and reminders in them.
    static func generate(_ pool: PostgresPool, random: inout SplitMix64) async throws -> Dataset {
        var data = Dataset()
        var tokenNumber = 0
        func token() -> String { tokenNumber += 1; return String(format: "TK%05dX", tokenNumber) }
        let today = LocalDate(now, in: TimeZone(identifier: "America/New_York")!)
        for index in 0..<14 {
            let id = random.uuid()
            try await pool.query("INSERT INTO auth.users (id) VALUES ($1) ON CONFLICT DO NOTHING", [id])
            try await pool.query("INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)",
                                 [id, "u\(index)-\(id.uuidString.prefix(6))@example.com", "u\(index)-\(id.uuidString.prefix(6))", "User \(index)"])
            if Bool.random(using: &random) {
                try await pool.query("INSERT INTO user_settings (user_id, time_zone) VALUES ($1, $2)",
                                     [id, ["America/New_York", "Europe/Paris", "Asia/Tokyo", "UTC"].randomElement(using: &random)!])
            }
            data.users.append(id)
        }
        for index in 0..<10 {
            let id = random.uuid()
            let members = Array(data.users.shuffled(using: &random).prefix(Int.random(in: 2...5, using: &random)))
            let name = token()
            try await pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, $2, $3)", [id, members.count > 2 ? "Group \(name)" : nil, members.count > 2])
            for member in members {
                try await pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [id, member])
            }
            data.conversations.append(id)
            data.conversationTokens.append(members.count > 2 ? name : "no-name-\(index)")
            data.members.append(members)
            for _ in 0..<Int.random(in: 2...6, using: &random) {
                let row = Row(id: random.uuid(), conversation: index, owner: nil, token: token())
                try await pool.query("INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, $5)",
                                     [row.id, id, members.randomElement(using: &random)!, "Message \(row.token)",
                                      now.addingTimeInterval(-Double.random(in: 60...(6 * 86_400), using: &random))])
                data.messages.append(row)
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let row = Row(id: random.uuid(), conversation: index, owner: nil, token: token())
                let hour = Int.random(in: 8...20, using: &random)
                try await pool.query(
                    """
                    INSERT INTO calendar_events (id, idempotency_key, conversation_id, title, date, time, category, confidence, prompt_id, prompt_version, model)
                    VALUES ($1, $2, $3, $4, $5, $6::time, 'other', 0.9, 'test', 1, 'test-model')
                    """, [row.id, "gen:\(row.id)", id, "Event \(row.token)", today.adding(days: Int.random(in: 0...10, using: &random)),
                          Bool.random(using: &random) ? String(format: "%02d:%02d", hour, [0, 30].randomElement(using: &random)!) : nil])
                data.events.append(row)
            }
            for member in members where Bool.random(using: &random) {
                let row = Row(id: random.uuid(), conversation: index, owner: member, token: token())
                try await pool.query(
                    """
                    INSERT INTO rsvp_tracking (id, idempotency_key, item_key, conversation_id, user_id, event_name, requested_by, deadline, event_date,
                                               status, prompt_id, prompt_version, model)
                    VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, 'pending', 'test', 1, 'test-model')
                    """, [row.id, "gen:\(row.id)", id, member, "RSVP \(row.token)", members[0], today.adding(days: 2), today.adding(days: 5)])
                data.rsvps.append(row)
            }
            for member in members where Bool.random(using: &random) {
                let row = Row(id: random.uuid(), conversation: index, owner: member, token: token())
                let due = today.adding(days: Int.random(in: 0...20, using: &random))
                try await pool.query(
                    """
                    INSERT INTO deadlines (id, idempotency_key, item_key, conversation_id, user_id, task, deadline, due_at, category, priority,
                                           prompt_id, prompt_version, model)
                    VALUES ($1, $2, $2, $3, $4, $5, $6::date, ($6::date + '23:59'::time) AT TIME ZONE 'UTC', 'school', 'high', 'test', 1, 'test-model')
                    """, [row.id, "gen:\(row.id)", id, member, "Task \(row.token)", due])
                data.deadlines.append(row)
            }
        }
        for user in data.users where Bool.random(using: &random) {
            let row = Row(id: random.uuid(), conversation: -1, owner: user, token: token())
            try await pool.query("INSERT INTO reminders (id, user_id, title, reminder_time) VALUES ($1, $2, $3, $4)",
                                 [row.id, user, "Reminder \(row.token)", now.addingTimeInterval(Double.random(in: 3600...(9 * 86_400), using: &random))])
            data.reminders.append(row)
        }
        return data
    }

    /// Schema-valid random arguments for one tool: ids drawn from every user's rows, unknown ids, garbage, extremes.
    static func randomCall(_ data: Dataset, user: Int, number: Int, random: inout SplitMix64) -> (name: String, arguments: JSONValue) {
        let anyIDs = data.conversations + data.allRows.map(\.id) + data.users + [random.uuid()]
        // Ids the user may use, so calls also succeed (their conversations, events, own deadlines).
        let own = data.allowed(for: data.users[user]).ids.sorted { $0.uuidString < $1.uuidString }
        func id() -> JSONValue {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: nil
            case 1: "not-an-id"
            case 2: "'; DELETE FROM reminders; --"
            case 3, 4: own.randomElement(using: &random).map { .string($0.uuidString.lowercased()) } ?? nil
            default: .string(anyIDs.randomElement(using: &random)!.uuidString.lowercased())
            }
        }
        func int(_ range: ClosedRange<Int>) -> JSONValue { .integer(Int64(Int.random(in: range, using: &random))) }
        func time() -> JSONValue {
            let times: [JSONValue] = [nil, "07:00", "12:30", "18:00", "23:59", "25:00"]
            return times.randomElement(using: &random)!
        }
        let today = LocalDate(now, in: TimeZone(identifier: "UTC")!)
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return ("get_recent_messages", ["conversation_id": id(), "days": int(-3...90), "limit": int(-1...150)])
        case 1: return ("get_upcoming_events", ["days": int(-3...90)])
        case 2:
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return ("check_conflicts", ["event_id": id(), "date": nil, "start_time": nil, "end_time": nil])
            case 1:
                let start = time()
                return ("check_conflicts", ["event_id": nil, "date": .string(today.adding(days: Int.random(in: -1...12, using: &random)).iso),
                                            "start_time": start, "end_time": start == nil ? nil : time()])
            default: return ("check_conflicts", ["event_id": nil, "date": nil, "start_time": nil, "end_time": nil])
            }
        case 3: return ("get_pending_rsvps", [:])
        case 4: return ("get_upcoming_deadlines", ["days": int(-3...90)])
        case 5: return ("list_reminders", ["include_done": .bool(Bool.random(using: &random))])
        default:
            let at = now.addingTimeInterval(Double(Int.random(in: -2...70, using: &random)) * 86_400 + 3600)
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "America/New_York")
            return ("create_reminder", ["title": .string("New reminder u\(user) n\(number)"), "remind_at": .string(formatter.string(from: at)),
                                        "priority": .string(["urgent", "high", "medium", "low"].randomElement(using: &random)!),
                                        "deadline_id": id()])
        }
    }

    /// Calls a tool as the agent loop does: arguments checked against its schema, then decoded. Nil result: a ToolError.
    static func call(_ name: String, _ arguments: JSONValue, context: ToolContext) async throws -> Result<JSONValue, ToolError> {
        func run<Tool: AgentTool>(_ tool: Tool) async throws -> Result<JSONValue, ToolError> {
            let problems = try JSONSchema(tool.parametersSchema).validate(arguments)
            try #require(problems.isEmpty, "generated arguments \(arguments) broke \(name)'s schema: \(problems)")
            do {
                return .success(try await tool.run(arguments.decode(Tool.Arguments.self)))
            } catch let error as ToolError {
                return .failure(error)
            }
        }
        switch name {
        case "get_recent_messages": return try await run(GetRecentMessagesTool(context: context))
        case "get_upcoming_events": return try await run(GetUpcomingEventsTool(context: context))
        case "check_conflicts": return try await run(CheckConflictsTool(context: context))
        case "get_pending_rsvps": return try await run(GetPendingRSVPsTool(context: context))
        case "get_upcoming_deadlines": return try await run(GetUpcomingDeadlinesTool(context: context))
        case "list_reminders": return try await run(ListRemindersTool(context: context))
        default: return try await run(CreateReminderTool(context: context))
        }
    }

    @Test("random calls of every tool, for every generated user, never show or write another user's rows")
    func noToolCallCrossesUsers() async throws {
        try await TestDatabase.with { db in
            var random = SplitMix64(seed: Self.seed)
            let data = try await Self.generate(db.pool, random: &random)
            let allTokens = Set(data.allRows.map(\.token) + data.conversationTokens.filter { $0.hasPrefix("TK") })
            let uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
            var successes = 0, failures = 0, shownRows = 0
            let limit = 4
            for (number, user) in data.users.enumerated() {
                let context = try await ToolContext.load(
                    userID: user, pool: db.pool, provenance: ToolProvenance(runID: nil, promptID: "assistant", promptVersion: 1, model: "test"),
                    now: Self.now, maxRemindersPerRun: limit)
                let (allowedIDs, allowedTokens) = data.allowed(for: user)
                let forbidden = allTokens.subtracting(allowedTokens)
                // One valid reminder on the user's own deadline first, so the linking write is exercised whatever the draw.
                var planned: [(name: String, arguments: JSONValue)] = []
                if let own = data.deadlines.first(where: { $0.owner == user }) {
                    planned.append(("create_reminder", [
                        "title": .string("Planned reminder u\(number)"), "remind_at": "2026-03-05T09:00:00Z", "priority": "high",
                        "deadline_id": .string(own.id.uuidString.lowercased()),
                    ]))
                }
                for call in 0..<40 {
                    let (name, arguments) = call < planned.count
                        ? planned[call] : Self.randomCall(data, user: number, number: call, random: &random)
                    switch try await Self.call(name, arguments, context: context) {
                    case .success(let result):
                        successes += 1
                        let text = result.serialized()
                        let leakedTokens = forbidden.filter { text.contains($0) }
                        #expect(leakedTokens.isEmpty, "\(name)(\(arguments.serialized())) for user \(number) showed \(leakedTokens.sorted())")
                        let created = Set(try await db.pool.query("SELECT id FROM reminders WHERE user_id = $1 AND origin = 'assistant'", [user])
                            .map { try $0.decode("id", as: UUID.self) })
                        let ids = text.matches(of: uuidPattern).compactMap { UUID(uuidString: String($0.output)) }
                        let strangers = ids.filter { !allowedIDs.contains($0) && !created.contains($0) }
                        #expect(strangers.isEmpty, "\(name)(\(arguments.serialized())) for user \(number) showed ids \(strangers)")
                        shownRows += allowedTokens.filter { text.contains($0) }.count
                    case .failure(let error):
                        failures += 1
                        let leakedTokens = forbidden.filter { error.description.contains($0) }
                        #expect(leakedTokens.isEmpty, "\(name) error for user \(number) described \(leakedTokens.sorted()): \(error)")
                    }
                }
            }
            // Writes: every assistant reminder belongs to the user whose tools made it, links only that user's own
            // deadline, and no user got more than the per-run limit.
            let writes = try await db.pool.query(
                """
                SELECT r.user_id, count(*) AS n, count(*) FILTER (WHERE r.deadline_id IS NOT NULL AND d.user_id IS DISTINCT FROM r.user_id) AS foreign_links
                FROM reminders r LEFT JOIN deadlines d ON d.id = r.deadline_id WHERE r.origin = 'assistant' GROUP BY r.user_id
                """)
            for row in writes {
                #expect(try row.decode("n", as: Int.self) <= limit)
                #expect(try row.decode("foreign_links", as: Int.self) == 0)
            }
            let linked: Int = try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE origin = 'assistant' AND deadline_id IS NOT NULL")[0].decode("n")
            // The generator must exercise both outcomes and actually show rows, or the test proves nothing.
            #expect(successes > 200 && failures > 50, "successes \(successes), failures \(failures)")
            #expect(shownRows > 300, "\(shownRows)")
            #expect(!writes.isEmpty && linked > 0, "writes \(writes.count), linked \(linked)")
        }
    }
}
