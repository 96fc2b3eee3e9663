import AgentRuntime
package import Core
import Foundation

/// `get_pending_rsvps`: invitations the user has not answered yet, most urgent first.
package struct GetPendingRSVPsTool: AgentTool {
    package typealias Arguments = NoArguments

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    static let maxRows = 50

    package let name = "get_pending_rsvps"
    package let description = """
        List RSVP requests the user has not answered yet, ordered by response deadline (none last) then event date: \
        event name, event date, deadline, days until the deadline (negative = overdue), who asked, and where.
        """
    package var parametersSchema: JSONValue { ToolSchema.object([]) }

    package func run(_ arguments: NoArguments) async throws -> JSONValue {
        let rows = try await context.pool.query(
            """
            SELECT r.id, r.event_name, r.event_date, r.deadline,
                   COALESCE(u.display_name, u.username) AS requested_by_name,
                   \(Scope.conversationName("c", userParameter: "$1")) AS conversation_name
            FROM rsvp_tracking r
            JOIN conversations c ON c.id = r.conversation_id
            LEFT JOIN users u ON u.id = r.requested_by
            WHERE r.user_id = $1::uuid AND r.status = 'pending' AND r.closed_at IS NULL
              AND \(Scope.inUserConversations("r", userParameter: "$1"))
            ORDER BY r.deadline NULLS LAST, r.event_date, r.event_name, r.id
            LIMIT $2
            """, [context.userID, Self.maxRows + 1])
        let today = context.today
        var items: [JSONValue] = []
        for row in rows.prefix(Self.maxRows) {
            let deadline: LocalDate? = try row.decode("deadline")
            items.append([
                "id": .id(try row.decode("id", as: UUID.self)),
                "event_name": .string(Bounds.truncate(try row.decode("event_name", as: String.self), to: Bounds.shortTextLength)),
                "event_date": .date(try row.decode("event_date", as: LocalDate.self)),
                "deadline": .date(deadline),
                "days_until_deadline": .int(deadline.map { today.days(until: $0) }),
                "requested_by": .text(Bounds.truncate(try row.decode("requested_by_name", as: String?.self), to: Bounds.shortTextLength)),
                "conversation": .string(Bounds.truncate(try row.decode("conversation_name", as: String.self), to: Bounds.shortTextLength)),
            ])
        }
        return [
            "today": .date(today),
            "rsvps": .array(items),
            "count": .int(items.count),
            "truncated": .bool(rows.count > Self.maxRows),
        ]
    }
}
