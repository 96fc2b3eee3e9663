import AgentRuntime
package import Core
import Foundation
import Postgres

/// `create_reminder`: the assistant's one write. Idempotent (the same title at the same minute is one row however
/// often it is asked for), bounded per run, never in the past or far future, and only for the user's own deadlines.
package struct CreateReminderTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let title: String
        package let remind_at: String
        package let priority: String
        package let deadline_id: String?
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    static let priorities = ["urgent", "high", "medium", "low"]
    static let maxDaysAhead = 60
    static let maxTitleLength = 200

    package let name = "create_reminder"
    package let description = """
        Create a reminder for the user. remind_at is an ISO 8601 date-time WITH a UTC offset (e.g. \
        2026-03-08T09:00:00-05:00), in the future and at most 60 days ahead. Link it to a deadline with deadline_id \
        (from get_upcoming_deadlines) or pass null. Asking twice for the same title and minute creates one reminder; \
        a run may create at most a few reminders, so create only the ones that matter.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([
            ("title", ToolSchema.string("What to remind the user of, short and specific (at most 200 characters).")),
            ("remind_at", ToolSchema.string("When, ISO 8601 date-time with offset, e.g. 2026-03-08T09:00:00-05:00.")),
            ("priority", ToolSchema.string("How important it is.", oneOf: Self.priorities)),
            ("deadline_id", ToolSchema.string("Id of the deadline this reminder is for, or null.", nullable: true)),
        ])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        let request = try validate(arguments)
        let deadline = try await resolveDeadline(arguments.deadline_id)
        let key = Self.idempotencyKey(user: context.userID, title: request.title, remindAt: request.remindAt)
        if let existing = try await existingReminder(key: key) {
            return duplicate(existing)
        }
        guard await context.reminderBudget.reserve() else {
            throw ToolError.limitReached("reminder limit of \(context.reminderBudget.limit) per run reached; no reminder was created")
        }
        let inserted: UUID?
        do {
            inserted = try await insert(request, deadline: deadline, key: key)
        } catch {
            await context.reminderBudget.release()
            throw error
        }
        guard let inserted else {
            // Lost a race with an identical call: the row exists, nothing was created.
            await context.reminderBudget.release()
            guard let existing = try await existingReminder(key: key) else {
                throw ToolError.invalidArgument(field: "title", reason: "a reminder with this key conflicts with another row of the user")
            }
            return duplicate(existing)
        }
        return [
            "created": true,
            "reminder_id": .id(inserted),
            "title": .string(request.title),
            "remind_at": .string(ISO8601Instant.string(request.remindAt, in: context.timeZone, style: .numericOffset)),
            "priority": .string(request.priority),
            "deadline_id": .id(deadline?.id),
        ]
    }

    /// `assistant:<user>:<title lower-cased, spaces collapsed>:<minute in UTC>`.
    static func idempotencyKey(user: UUID, title: String, remindAt: Date) -> String {
        "assistant:\(user.uuidString.lowercased()):\(normalized(title).lowercased()):\(ISO8601Instant.string(remindAt, style: .minutes))"
    }

    /// Trimmed, with every run of whitespace made one space.
    static func normalized(_ title: String) -> String {
        title.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private struct Request {
        let title: String
        let remindAt: Date
        let priority: String
    }

    private func validate(_ arguments: Arguments) throws -> Request {
        let title = Self.normalized(arguments.title)
        guard !title.isEmpty else { throw ToolError.invalidArgument(field: "title", reason: "the title is empty") }
        guard title.count <= Self.maxTitleLength else {
            throw ToolError.invalidArgument(field: "title", reason: "the title has \(title.count) characters; at most \(Self.maxTitleLength) are allowed")
        }
        guard Self.priorities.contains(arguments.priority) else {
            throw ToolError.invalidArgument(
                field: "priority", reason: "'\(Bounds.truncate(arguments.priority, to: 40))' is not one of \(Self.priorities.joined(separator: ", "))")
        }
        let parsed: Date
        switch ISO8601Instant.parse(arguments.remind_at, grammar: .lenient) {
        case .success(let instant): parsed = instant.date
        case .failure(let failure) where failure.kind == .missingOffset:
            throw ToolError.invalidArgument(
                field: "remind_at", reason: "'\(Bounds.truncate(arguments.remind_at, to: 60))' has no UTC offset; write it like 2026-03-08T09:00:00-05:00")
        case .failure:
            throw ToolError.invalidArgument(
                field: "remind_at", reason: "'\(Bounds.truncate(arguments.remind_at, to: 60))' is not an ISO 8601 date-time like 2026-03-08T09:00:00-05:00")
        }
        let remindAt = Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 / 60).rounded(.down) * 60)
        let now = ISO8601Instant.string(context.now, in: context.timeZone, style: .numericOffset)
        guard remindAt > context.now else {
            throw ToolError.invalidArgument(field: "remind_at", reason: "\(arguments.remind_at) is in the past (now is \(now))")
        }
        guard remindAt <= context.now.addingTimeInterval(Double(Self.maxDaysAhead) * 86_400) else {
            throw ToolError.invalidArgument(
                field: "remind_at", reason: "\(arguments.remind_at) is more than \(Self.maxDaysAhead) days ahead (now is \(now))")
        }
        return Request(title: title, remindAt: remindAt, priority: arguments.priority)
    }

    private struct DeadlineRef {
        let id: UUID
        let conversationID: UUID
    }

    private func resolveDeadline(_ text: String?) async throws -> DeadlineRef? {
        guard let text else { return nil }
        let id = try parseID(text, field: "deadline_id")
        let rows = try await context.pool.query(
            """
            SELECT d.id, d.conversation_id FROM deadlines d
            WHERE d.id = $2::uuid AND d.user_id = $1::uuid AND \(Scope.inUserConversations("d", userParameter: "$1"))
            """, [context.userID, id])
        guard let row = rows.first else { throw ToolError.notFound(kind: "deadline", field: "deadline_id", id: text) }
        return DeadlineRef(id: try row.decode("id"), conversationID: try row.decode("conversation_id"))
    }

    private func existingReminder(key: String) async throws -> UUID? {
        let rows = try await context.pool.query(
            "SELECT id FROM reminders WHERE user_id = $1::uuid AND (idempotency_key = $2 OR item_key = $2)", [context.userID, key])
        return try rows.first?.decode("id", as: UUID.self)
    }

    private func insert(_ request: Request, deadline: DeadlineRef?, key: String) async throws -> UUID? {
        let provenance = context.provenance
        let rows = try await context.pool.query(
            """
            INSERT INTO reminders (user_id, title, reminder_time, priority, status, created_by, origin, idempotency_key, item_key,
                                   deadline_id, conversation_id, run_id, prompt_id, prompt_version, model)
            VALUES ($1::uuid, $2, $3, $4, 'pending', 'ai', 'assistant', $5, $5, $6::uuid, $7::uuid, $8::uuid, $9, $10, $11)
            ON CONFLICT DO NOTHING
            RETURNING id
            """,
            [
                context.userID, request.title, request.remindAt, request.priority, key, deadline?.id, deadline?.conversationID,
                provenance.runID, provenance.promptID, provenance.promptVersion, provenance.model,
            ])
        return try rows.first?.decode("id", as: UUID.self)
    }

    private func duplicate(_ id: UUID) -> JSONValue {
        ["created": false, "reminder_id": .id(id), "reason": "already exists"]
    }
}
