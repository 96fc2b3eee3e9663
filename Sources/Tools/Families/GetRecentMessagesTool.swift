import AgentRuntime
package import Core
import Foundation

/// `get_recent_messages`: what people said lately, in all the user's conversations or one of them.
package struct GetRecentMessagesTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let conversation_id: String?
        package let days: Int
        package let limit: Int
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    package let name = "get_recent_messages"
    package let description = """
        Read recent messages from the user's conversations, newest first: conversation name, sender, time sent \
        (ISO 8601 with the user's UTC offset) and text (long texts are cut). Pass a conversation_id to read one \
        conversation, or null for all of them.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([
            ("conversation_id", ToolSchema.string("Id of one conversation (from an earlier result), or null for all.", nullable: true)),
            ("days", ToolSchema.integer("How many days back to read, 1 to 60 (clamped).")),
            ("limit", ToolSchema.integer("Maximum number of messages, 1 to 100 (clamped).")),
        ])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        let days = Bounds.clamp(arguments.days, to: Bounds.days)
        let limit = Bounds.clamp(arguments.limit, to: Bounds.count)
        let conversationID = try arguments.conversation_id.map { try parseID($0, field: "conversation_id") }
        if let conversationID, let text = arguments.conversation_id {
            let member = try await context.pool.query(
                "SELECT 1 FROM conversation_participants WHERE user_id = $1::uuid AND conversation_id = $2::uuid",
                [context.userID, conversationID])
            guard !member.isEmpty else { throw ToolError.notFound(kind: "conversation", field: "conversation_id", id: text) }
        }
        let since = context.now.addingTimeInterval(-Double(days) * 86_400)
        let rows = try await context.pool.query(
            """
            SELECT m.id, m.conversation_id, m.content, m.created_at,
                   \(Scope.conversationName("c", userParameter: "$1")) AS conversation_name,
                   COALESCE(u.display_name, u.username, 'Unknown sender') AS sender_name
            FROM messages m
            JOIN conversations c ON c.id = m.conversation_id
            LEFT JOIN users u ON u.id = m.sender_id
            WHERE \(Scope.inUserConversations("m", userParameter: "$1"))
              AND ($2::uuid IS NULL OR m.conversation_id = $2::uuid)
              AND m.deleted_at IS NULL
              AND messageai_utc(m.created_at) > $3::timestamptz AND messageai_utc(m.created_at) <= $4::timestamptz
            ORDER BY m.created_at DESC, m.id DESC
            LIMIT $5
            """, [context.userID, conversationID, since, context.now, limit + 1])
        var messages: [JSONValue] = []
        for row in rows.prefix(limit) {
            let text: String = try row.decode("content")
            let sentAt: Date = try row.decode("created_at")
            messages.append([
                "id": .id(try row.decode("id", as: UUID.self)),
                "conversation_id": .id(try row.decode("conversation_id", as: UUID.self)),
                "conversation": .string(Bounds.truncate(try row.decode("conversation_name", as: String.self), to: Bounds.shortTextLength)),
                "sender": .string(Bounds.truncate(try row.decode("sender_name", as: String.self), to: Bounds.shortTextLength)),
                "sent_at": .string(ISO8601Instant.string(sentAt, in: context.timeZone, style: .numericOffset)),
                "text": .string(Bounds.truncate(text, to: Bounds.messageTextLength)),
            ])
        }
        return [
            "messages": .array(messages),
            "count": .int(messages.count),
            "days": .int(days),
            "limit": .int(limit),
            "has_more": .bool(rows.count > limit),
        ]
    }
}
