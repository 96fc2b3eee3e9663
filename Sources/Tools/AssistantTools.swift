package import AgentRuntime
package import Core
package import Foundation
package import Postgres

/// The proactive assistant's toolbox, bound to one user for one run.
package enum AssistantTools {
    /// Builds every tool for `userID`. Throws `ToolContextError.unknownUser` ("no user with id ...") when the user
    /// does not exist, so a run for a deleted user stops before the model is called.
    package static func make(
        userID: UUID, pool: PostgresPool, runID: UUID?, promptID: String, promptVersion: Int, model: String,
        now: Date = Date(), maxRemindersPerRun: Int = 3, zones: UserTimeZonePolicy = .utc
    ) async throws -> [AnyAgentTool] {
        let context = try await ToolContext.load(
            userID: userID, pool: pool,
            provenance: ToolProvenance(runID: runID, promptID: promptID, promptVersion: promptVersion, model: model),
            now: now, maxRemindersPerRun: maxRemindersPerRun, zones: zones)
        return try make(context: context)
    }

    /// The tools' names, in the order `make` builds them (checked by a test), for options that name a tool before
    /// any context exists (`assist --first-tool-choice`).
    package static let names = [
        "get_recent_messages", "get_upcoming_events", "check_conflicts", "get_pending_rsvps", "get_upcoming_deadlines",
        "list_reminders", "create_reminder",
    ]

    /// The same tools over an already loaded context (tests, or a caller that needs the context too).
    package static func make(context: ToolContext) throws -> [AnyAgentTool] {
        [
            try AnyAgentTool(GetRecentMessagesTool(context: context)),
            try AnyAgentTool(GetUpcomingEventsTool(context: context)),
            try AnyAgentTool(CheckConflictsTool(context: context)),
            try AnyAgentTool(GetPendingRSVPsTool(context: context)),
            try AnyAgentTool(GetUpcomingDeadlinesTool(context: context)),
            try AnyAgentTool(ListRemindersTool(context: context)),
            try AnyAgentTool(CreateReminderTool(context: context)),
        ]
    }
}
