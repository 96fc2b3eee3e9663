import Core
import Foundation
import Postgres

/// A calendar event from one of the bound user's conversations, as the event tools read it.
struct EventRecord: Sendable, Hashable {
    let id: UUID
    let title: String
    let date: LocalDate
    let time: LocalTime?
    let endTime: LocalTime?
    let location: String?
    let category: String
    let conversationID: UUID
    let conversation: String
    /// The item it is (`Scope.eventItem`): a moved event's rows never conflict with each other.
    let item: String

    static let maxRows = 200

    /// Events of the user's conversations dated `from` through `through`, by date and time (all-day first).
    static func visible(in context: ToolContext, from: LocalDate, through: LocalDate, limit: Int = maxRows) async throws -> [EventRecord] {
        let rows = try await context.pool.query(
            select + """
             AND e.date BETWEEN $2::date AND $3::date
            ORDER BY e.date, e.time NULLS FIRST, e.title, e.id
            LIMIT $4
            """, [context.userID, from, through, limit])
        return try rows.map(EventRecord.init(row:))
    }

    /// One event, or nil when it does not exist or belongs to a conversation the user is not in.
    static func visible(in context: ToolContext, id: UUID) async throws -> EventRecord? {
        let rows = try await context.pool.query(select + " AND e.id = $2::uuid", [context.userID, id])
        return try rows.first.map(EventRecord.init(row:))
    }

    private static let select = """
        SELECT e.id, e.title, e.date, e.time, e.end_time, e.location, e.category, e.conversation_id, \(Scope.eventItem("e")) AS item,
               \(Scope.conversationName("c", userParameter: "$1")) AS conversation_name
        FROM calendar_events e JOIN conversations c ON c.id = e.conversation_id
        WHERE \(Scope.inUserConversations("e", userParameter: "$1")) AND e.closed_at IS NULL
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        title = try row.decode("title")
        date = try row.decode("date")
        time = try row.decode("time")
        endTime = try row.decode("end_time")
        location = try row.decode("location")
        category = try row.decode("category")
        conversationID = try row.decode("conversation_id")
        conversation = try row.decode("conversation_name")
        item = try row.decode("item")
    }

    func interval(in timeZone: TimeZone) -> EventInterval {
        EventInterval(date: date, time: time, endTime: endTime, in: timeZone)
    }

    /// The fields the model sees.
    var json: JSONValue {
        [
            "id": .id(id),
            "title": .string(Bounds.truncate(title, to: Bounds.shortTextLength)),
            "date": .date(date),
            "time": .time(time),
            "end_time": .time(endTime),
            "location": .text(Bounds.truncate(location, to: Bounds.shortTextLength)),
            "category": .string(category),
            "conversation_id": .id(conversationID),
            "conversation": .string(Bounds.truncate(conversation, to: Bounds.shortTextLength)),
        ]
    }
}
