import AgentRuntime
import Foundation
package import Core

/// `get_upcoming_events`: what is on the user's calendar soon, from every conversation they are in.
package struct GetUpcomingEventsTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let days: Int
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    package let name = "get_upcoming_events"
    package let description = """
        List calendar events from the user's conversations, from today (the user's time zone) through today + days, \
        ordered by date and time. Events without a time are all-day. Use it to see what the user has coming up.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([("days", ToolSchema.integer("How many days ahead to look, 1 to 60 (clamped)."))])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        let days = Bounds.clamp(arguments.days, to: Bounds.days)
        let from = context.today
        let through = from.adding(days: days)
        let events = try await EventRecord.visible(in: context, from: from, through: through, limit: Bounds.count.upperBound + 1)
        let shown = events.prefix(Bounds.count.upperBound)
        return [
            "from": .date(from),
            "through": .date(through),
            "time_zone": .string(context.timeZone.identifier),
            "events": .array(shown.map(\.json)),
            "count": .int(shown.count),
            "truncated": .bool(events.count > shown.count),
        ]
    }
}
