import AgentRuntime
package import Core
import Foundation

/// `get_upcoming_deadlines`: the user's open tasks falling due soon.
package struct GetUpcomingDeadlinesTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let days: Int
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    package let name = "get_upcoming_deadlines"
    package let description = """
        List the user's pending deadlines (forms, payments, things to bring) due from today through today + days, \
        soonest first, with priority and days left. Use the id as deadline_id when creating a reminder for one.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([("days", ToolSchema.integer("How many days ahead to look, 1 to 60 (clamped)."))])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        let days = Bounds.clamp(arguments.days, to: Bounds.days)
        let today = context.today
        let through = today.adding(days: days)
        let limit = Bounds.count.upperBound
        let rows = try await context.pool.query(
            """
            SELECT d.id, d.task, d.deadline, d.deadline_time, d.category, d.priority,
                   \(Scope.conversationName("c", userParameter: "$1")) AS conversation_name
            FROM deadlines d JOIN conversations c ON c.id = d.conversation_id
            WHERE d.user_id = $1::uuid AND d.status = 'pending' AND d.closed_at IS NULL
              AND \(Scope.inUserConversations("d", userParameter: "$1"))
              AND d.deadline BETWEEN $2::date AND $3::date
            ORDER BY d.deadline, d.deadline_time NULLS LAST, d.task, d.id
            LIMIT $4
            """, [context.userID, today, through, limit + 1])
        var items: [JSONValue] = []
        for row in rows.prefix(limit) {
            let deadline: LocalDate = try row.decode("deadline")
            items.append([
                "id": .id(try row.decode("id", as: UUID.self)),
                "task": .string(Bounds.truncate(try row.decode("task", as: String.self), to: Bounds.shortTextLength)),
                "deadline": .date(deadline),
                "deadline_time": .time(try row.decode("deadline_time", as: LocalTime?.self)),
                "category": .string(try row.decode("category", as: String.self)),
                "priority": .string(try row.decode("priority", as: String.self)),
                "days_left": .int(today.days(until: deadline)),
                "conversation": .string(Bounds.truncate(try row.decode("conversation_name", as: String.self), to: Bounds.shortTextLength)),
            ])
        }
        return [
            "from": .date(today),
            "through": .date(through),
            "deadlines": .array(items),
            "count": .int(items.count),
            "truncated": .bool(rows.count > limit),
        ]
    }
}
