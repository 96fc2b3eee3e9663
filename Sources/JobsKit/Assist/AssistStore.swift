import AgentRuntime
import Extractors
import Foundation
import JSONKit
import Postgres

/// Writes an assistant run's trace and findings in one transaction.
enum AssistStore {
    /// Returns how many reminders the run created (the reminder tool wrote them as it ran).
    static func save(_ result: AgentRunResult, runID: UUID, userID: UUID, prompt: PromptRef, pool: PostgresPool) async throws -> Int {
        try await pool.transaction { db in
            for step in result.steps {
                try await db.query(
                    """
                    INSERT INTO agent_traces (run_id, user_id, step, request_summary, tool_calls, finish_reason,
                                              prompt_tokens, completion_tokens, latency_ms)
                    VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9)
                    """,
                    [runID, userID, step.index, ((try? JSONValue.encode(step.request)) ?? .null).withoutNULs,
                     ((try? JSONValue.encode(step.toolCalls)) ?? .array([])).withoutNULs,
                     (step.finishReason ?? step.error.map { "error: \($0)" })?.withoutNULs,
                     step.usage?.promptTokens ?? 0, step.usage?.completionTokens ?? 0, Int(step.latencyMs)])
            }
            let reminders: Int = try await db.query(
                "SELECT count(*) AS n FROM reminders WHERE run_id = $1 AND user_id = $2 AND origin = 'assistant'",
                [runID, userID])[0].decode("n")
            // Postgres cannot store U+0000, which a model may echo from a hostile message: drop it, keep the run.
            let output = result.output?.withoutNULs
            try await db.query(
                """
                INSERT INTO assistant_findings (run_id, user_id, summary, conflicts, pending_rsvps, near_deadlines,
                    suggested_actions, reminders_created, stop_reason, steps, prompt_id, prompt_version, model)
                VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13)
                """,
                [runID, userID, (output?["summary"]?.stringValue ?? result.finalText ?? "(no answer)").withoutNULs,
                 output?["conflicts"] ?? .array([]), output?["pending_rsvps"] ?? .array([]), output?["near_deadlines"] ?? .array([]),
                 output?["suggested_actions"] ?? .array([]), reminders, "\(result.stopReason)".withoutNULs, result.steps.count,
                 prompt.id, prompt.version, prompt.model])
            return reminders
        }
    }
}
