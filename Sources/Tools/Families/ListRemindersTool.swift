import AgentRuntime
package import Core
import Foundation

/// `list_reminders`: the user's reminders, so the assistant does not suggest one that already exists.
package struct ListRemindersTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let include_done: Bool
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    package let name = "list_reminders"
    package let description = """
        List the user's reminders by time: title, when (ISO 8601 with the user's offset), priority, status and who \
        created it. Check this before creating a reminder. include_done also lists completed and dismissed ones.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([("include_done", ToolSchema.boolean("true to include completed and dismissed reminders."))])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        let limit = Bounds.count.upperBound
        let rows = try await context.pool.query(
            """
            SELECT id, title, reminder_time, priority, status, created_by, deadline_id
            FROM reminders r
            WHERE user_id = $1::uuid AND ($2::boolean OR status IN ('pending', 'sent'))
              AND \(Scope.reminderOfOpenItem("r", userParameter: "$1", includeClosed: "$2::boolean"))
            ORDER BY reminder_time, id
            LIMIT $3
            """, [context.userID, arguments.include_done, limit + 1])
        var items: [JSONValue] = []
        for row in rows.prefix(limit) {
            items.append([
                "id": .id(try row.decode("id", as: UUID.self)),
                "title": .string(Bounds.truncate(try row.decode("title", as: String.self), to: Bounds.shortTextLength)),
                "remind_at": .string(ISO8601Instant.string(try row.decode("reminder_time", as: Date.self), in: context.timeZone, style: .numericOffset)),
                "priority": .string(try row.decode("priority", as: String.self)),
                "status": .string(try row.decode("status", as: String.self)),
                "created_by": .string(try row.decode("created_by", as: String.self)),
                "deadline_id": .id(try row.decode("deadline_id", as: UUID?.self)),
            ])
        }
        return ["reminders": .array(items), "count": .int(items.count), "truncated": .bool(rows.count > limit)]
    }
}
