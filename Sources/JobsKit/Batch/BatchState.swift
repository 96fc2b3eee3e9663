import Postgres

/// Where a batch stands on our side (`llm_batches.status`; the migration's CHECK lists the same values).
package enum BatchState: String, PostgresEnum, Codable, Sendable {
    /// Claiming and rendering; nothing sent yet.
    case preparing
    /// Waiting for OpenAI.
    case submitted
    /// Answers applied.
    case collected
    case failed
    case expired
    case cancelled
    /// Nothing needed the model.
    case empty
}
