import AgentRuntime
import Extractors
import Foundation
import Core
import Postgres
import PromptKit

/// Writes an assistant run in one transaction: its steps (`agent_traces`), its checked answer, tokens and dropped
/// items (`assistant_runs`), and the explanations and ranks it gave the user's findings (`assistant_findings`).
enum AssistStore {
    /// Returns how many reminders the run created (the reminder tool wrote them as it ran).
    static func save(_ result: AgentRunResult, checked: FindingCheck.Outcome?, findingsIn: Int, runID: UUID, userID: UUID,
                     prompt: PromptRef, pool: PostgresPool) async throws -> Int {
        try await pool.transaction { db in
            for step in result.steps {
                try await db.query(
                    """
                    INSERT INTO agent_traces (run_id, user_id, step, request_summary, tool_calls, finish_reason,
                                              prompt_tokens, completion_tokens, latency_ms)
                    VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9)
                    ON CONFLICT (run_id, user_id, step) DO NOTHING
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
            let output = checked?.output.withoutNULs
            let dropped = JSONValue.array((checked?.violations ?? []).map {
                ["section": .string($0.section), "reason": .string($0.reason), "item": .string($0.item)]
            }).withoutNULs
            try await db.query(
                """
                INSERT INTO assistant_runs (run_id, user_id, summary, conflicts, pending_rsvps, near_deadlines,
                    suggested_actions, reminders_created, stop_reason, steps, prompt_id, prompt_version, model,
                    prompt_tokens, completion_tokens, findings_in, dropped, prompts, priority_messages)
                VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18::jsonb,
                        $19::jsonb)
                ON CONFLICT (run_id, user_id) DO UPDATE SET summary = EXCLUDED.summary, conflicts = EXCLUDED.conflicts,
                    pending_rsvps = EXCLUDED.pending_rsvps, near_deadlines = EXCLUDED.near_deadlines,
                    priority_messages = EXCLUDED.priority_messages,
                    suggested_actions = EXCLUDED.suggested_actions, reminders_created = EXCLUDED.reminders_created,
                    stop_reason = EXCLUDED.stop_reason, steps = EXCLUDED.steps, prompt_tokens = EXCLUDED.prompt_tokens,
                    completion_tokens = EXCLUDED.completion_tokens, findings_in = EXCLUDED.findings_in, dropped = EXCLUDED.dropped,
                    prompts = EXCLUDED.prompts
                """,
                [runID, userID, summaryText(output: output, stopReason: result.stopReason).withoutNULs,
                 output?["conflicts"] ?? .array([]), output?["pending_rsvps"] ?? .array([]), output?["near_deadlines"] ?? .array([]),
                 output?["suggested_actions"] ?? .array([]), reminders, String("\(result.stopReason)".prefix(maxStopReasonCharacters)).withoutNULs, result.steps.count,
                 prompt.id, prompt.version, result.servedModel ?? prompt.model, result.usage.promptTokens, result.usage.completionTokens, findingsIn, dropped,
                 JobRunRecorder.json(prompt.sha256.map { [PromptFingerprint(id: prompt.id, version: prompt.version, sha256: $0)] } ?? []),
                 output?["priority_messages"] ?? .array([])])
            if let checked {
                // The model's order and words for the findings it raised; the others lose a rank from an older run.
                let accepted = JSONValue.array(checked.accepted.map {
                    ["kind": .string($0.kind), "subject_key": .string($0.subjectKey), "rank": .integer(Int64($0.rank)),
                     "explanation": .string(String($0.explanation.prefix(2000)))]
                }).withoutNULs
                try await db.query(
                    """
                    UPDATE assistant_findings a SET rank = f.rank, explanation = COALESCE(f.explanation, a.explanation)
                    FROM (SELECT x.id, y.rank, y.explanation FROM assistant_findings x
                          LEFT JOIN jsonb_to_recordset($2::jsonb) AS y(kind text, subject_key text, rank int, explanation text)
                            ON y.kind = x.kind AND y.subject_key = x.subject_key
                          WHERE x.user_id = $1 AND x.status = 'open') f
                    WHERE a.id = f.id AND (a.rank, a.explanation) IS DISTINCT FROM (f.rank, COALESCE(f.explanation, a.explanation))
                    """, [userID, accepted])
            }
            if checked?.output != nil {
                // A pass's claim on this run ends with the run's own commit: the findings it started from are narrated,
                // so a pass killed right after this commit costs no second run for the user (`finishNarrations` would
                // otherwise be the only record, written once the whole batch is done).
                try await db.query(
                    """
                    UPDATE proactive_users SET narrated_digest = narrating_digest, narrated_run_id = $2,
                        narrating_owner = NULL, narrating_until = NULL, narrating_digest = NULL
                    WHERE user_id = $1 AND narrating_owner = $3
                    """, [userID, runID, runID.postgresValue])
            }
            return reminders
        }
    }

    /// Characters of `assistant_runs.summary`: the output schema's cap on the summary the user reads.
    static let maxSummaryCharacters = 2_000
    static let maxStopReasonCharacters = 1_000

    /// The checked answer's summary; a run without a valid answer stores why, never the model's unchecked text
    /// (it may be long, off-schema, or echo a hostile message into a row the user reads).
    static func summaryText(output: JSONValue?, stopReason: AgentStopReason) -> String {
        if let summary = output?["summary"]?.stringValue { return String(summary.prefix(maxSummaryCharacters)) }
        return String("\(noAnswerPrefix)\(stopReason))".prefix(maxSummaryCharacters))
    }

    /// How the summary of a run without a valid answer starts (`AssistantView` shows the last answered run).
    static let noAnswerPrefix = "(no valid answer: "
}
