import AgentRuntime
import Core
import Foundation
import Postgres
import TestSupport
import Testing
import Tools

/// A small, explicit data set per test: users, conversations and the rows the tools read, inserted with SQL.
struct World {
    let db: TestDatabase
    var pool: PostgresPool { db.pool }

    /// 2026-03-05 15:00 UTC (10:00 in New York, a Thursday three days before the US spring-forward).
    static let now = Date(timeIntervalSince1970: 1_772_722_800)

    static func with(_ body: (World) async throws -> Void) async throws {
        try await TestDatabase.with { db in try await body(World(db: db)) }
    }

    @discardableResult
    func user(_ name: String, timeZone: String? = nil) async throws -> UUID {
        let id = UUID()
        try await pool.query("INSERT INTO auth.users (id) VALUES ($1::uuid)", [id])
        try await pool.query(
            "INSERT INTO users (id, email, username, display_name) VALUES ($1::uuid, $2, $3, $4)",
            [id, "\(name.lowercased())-\(id.uuidString.prefix(8))@example.com", "\(name.lowercased())-\(id.uuidString.prefix(8))", name])
        if let timeZone {
            try await pool.query("INSERT INTO user_settings (user_id, time_zone) VALUES ($1::uuid, $2)", [id, timeZone])
        }
        return id
    }

    func conversation(_ name: String?, members: [UUID]) async throws -> UUID {
        let id = UUID()
        try await pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1::uuid, $2, $3)", [id, name, members.count > 2])
        for member in members {
            try await pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1::uuid, $2::uuid)", [id, member])
        }
        return id
    }

    @discardableResult
    func message(in conversation: UUID, from sender: UUID, _ text: String, at date: Date, deleted: Bool = false) async throws -> UUID {
        let id = UUID()
        try await pool.query(
            """
            INSERT INTO messages (id, conversation_id, sender_id, content, created_at, deleted_at)
            VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6)
            """, [id, conversation, sender, text, date, deleted ? date : nil])
        return id
    }

    @discardableResult
    func event(
        in conversation: UUID, _ title: String, on date: LocalDate, at time: String? = nil, until end: String? = nil,
        location: String? = nil
    ) async throws -> UUID {
        let id = UUID()
        try await pool.query(
            """
            INSERT INTO calendar_events (id, idempotency_key, conversation_id, title, date, time, end_time, location, category,
                                         confidence, prompt_id, prompt_version, model)
            VALUES ($1::uuid, $2, $3::uuid, $4, $5::date, $6::time, $7::time, $8, 'other', 0.9, 'test', 1, 'test-model')
            """, [id, "test:event:\(id)", conversation, title, date, time, end, location])
        return id
    }

    @discardableResult
    func rsvp(
        for user: UUID, in conversation: UUID, _ eventName: String, eventDate: LocalDate, deadline: LocalDate?,
        requestedBy: UUID?, responded: Bool = false
    ) async throws -> UUID {
        let id = UUID()
        try await pool.query(
            """
            INSERT INTO rsvp_tracking (id, idempotency_key, item_key, conversation_id, user_id, event_name, requested_by, deadline,
                                       event_date, status, response, prompt_id, prompt_version, model)
            VALUES ($1::uuid, $2, $2, $3::uuid, $4::uuid, $5, $6::uuid, $7::date, $8::date, $9, $10, 'test', 1, 'test-model')
            """,
            [id, "test:rsvp:\(id)", conversation, user, eventName, requestedBy, deadline, eventDate,
             responded ? "responded" : "pending", responded ? "yes" : nil])
        return id
    }

    @discardableResult
    func deadline(
        for user: UUID, in conversation: UUID, _ task: String, due date: LocalDate, at time: String? = nil,
        priority: String = "high", status: String = "pending"
    ) async throws -> UUID {
        let id = UUID()
        try await pool.query(
            """
            INSERT INTO deadlines (id, idempotency_key, item_key, conversation_id, user_id, task, deadline, deadline_time, due_at,
                                   category, priority, status, prompt_id, prompt_version, model)
            VALUES ($1::uuid, $2, $2, $3::uuid, $4::uuid, $5, $6::date, $7::time, ($6::date + COALESCE($7::time, '23:59'::time)) AT TIME ZONE 'UTC',
                    'school', $8, $9, 'test', 1, 'test-model')
            """, [id, "test:deadline:\(id)", conversation, user, task, date, time, priority, status])
        return id
    }

    func context(for user: UUID, now: Date = World.now, maxReminders: Int = 3, runID: UUID? = nil) async throws -> ToolContext {
        try await ToolContext.load(
            userID: user, pool: pool,
            provenance: ToolProvenance(runID: runID, promptID: "assistant.proactive", promptVersion: 2, model: "test-model"),
            now: now, maxRemindersPerRun: maxReminders)
    }

    func count(_ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await pool.query(sql, binds)[0].decode(at: 0, as: Int.self)
    }
}

/// Calls a tool the way the agent loop does: arguments checked against the tool's schema, then decoded.
func call<Tool: AgentTool>(_ tool: Tool, _ arguments: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
    let violations = try JSONSchema(tool.parametersSchema).validate(arguments)
    try #require(violations.isEmpty, "arguments \(arguments) rejected by \(tool.name)'s schema: \(violations)", sourceLocation: sourceLocation)
    return try await tool.run(arguments.decode(Tool.Arguments.self))
}

/// The error message a tool call fails with, or nil when it succeeded.
func failure<Tool: AgentTool>(_ tool: Tool, _ arguments: JSONValue) async throws -> String? {
    do {
        _ = try await call(tool, arguments)
        return nil
    } catch let error as ToolError {
        return error.description
    }
}

func day(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }

func ids(_ value: JSONValue?, _ key: String = "id") -> [String] {
    (value?.arrayValue ?? []).compactMap { $0[key]?.stringValue }
}

extension UUID {
    var text: String { uuidString.lowercased() }
}
