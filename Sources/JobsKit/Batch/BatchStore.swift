import AgentRuntime
import Extractors
package import Foundation
import Core
import Postgres

/// The batch tables (`llm_batches`, `llm_batch_conversations`, `llm_batch_items`) in SQL.
struct BatchStore: Sendable {
    let pool: PostgresPool

    /// A batch row as collect needs it.
    struct Record: Sendable {
        let id: UUID
        let runID: UUID?
        let status: BatchState
        let remoteBatchID: String?
        let features: [ExtractionFeature]
        let prompts: [ExtractionFeature: PromptRef]
    }

    /// A conversation waiting for its answers, with the requests sent for it.
    struct PendingConversation: Sendable {
        let conversationID: UUID
        let input: JSONValue
        let watermark: InputMessage?
        let items: [Item]
    }

    struct Item: Sendable {
        let customID: String
        let feature: ExtractionFeature
        let window: Range<Int>
    }

    // MARK: Submit

    func create(_ id: UUID, runID: UUID, features: [ExtractionFeature], prompts: [ExtractionFeature: PromptRef]) async throws {
        let promptsJSON = try JSONValue.encode(Dictionary(uniqueKeysWithValues: prompts.map { ($0.key.rawValue, $0.value) }))
        try await pool.query(
            "INSERT INTO llm_batches (id, run_id, features, prompts) VALUES ($1, $2, $3, $4::jsonb)",
            [id, runID, features.map(\.rawValue), promptsJSON])
    }

    func addConversation(batchID: UUID, conversationID: UUID, input: JSONValue, watermark: InputMessage?, newMessages: Int, skipped: Int,
                         items: [Item], on db: PostgresConnection) async throws {
        try await db.query(
            """
            INSERT INTO llm_batch_conversations (batch_id, conversation_id, input, watermark_message_id, watermark_message_at,
                new_messages, skipped_messages)
            VALUES ($1, $2, $3::jsonb, $4::uuid, $5, $6, $7)
            """, [batchID, conversationID, input, watermark?.id, watermark?.sentAt, newMessages, skipped])
        for item in items {
            try await db.query(
                """
                INSERT INTO llm_batch_items (custom_id, batch_id, conversation_id, feature, window_start, window_end)
                VALUES ($1, $2, $3, $4, $5, $6)
                """, [item.customID, batchID, conversationID, item.feature.rawValue, item.window.lowerBound, item.window.upperBound])
        }
    }

    /// Records the remote batch and stretches its conversations' leases over the completion window, in one transaction.
    func markSubmitted(_ id: UUID, remote: BatchObject, requests: Int, conversations: Int, leaseSeconds: Int) async throws {
        try await pool.transaction { db in
            try await db.query(
                """
                UPDATE llm_batches SET status = 'submitted', remote_batch_id = $2, remote_status = $3, input_file_id = $4,
                    requests = $5, conversations = $6, submitted_at = now(), checked_at = now()
                WHERE id = $1
                """, [id, remote.id, remote.status.rawValue, remote.inputFileID, requests, conversations])
            try await db.query(
                "UPDATE scan_watermarks SET lease_expires_at = now() + make_interval(secs => $2) WHERE lease_owner = $1",
                [BatchOptions.owner(id), leaseSeconds])
        }
    }

    /// Nothing needed the model: the row stays for the record.
    func markEmpty(_ id: UUID) async throws {
        try await pool.query("UPDATE llm_batches SET status = 'empty', finished_at = now() WHERE id = $1", [id])
    }

    /// Submission failed: every conversation is released for the next scan (not counted as its failure).
    func abandon(_ id: UUID, error: String) async throws {
        try await pool.transaction { db in
            try await db.query("UPDATE llm_batches SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1",
                               [id, String(error.prefix(2000))])
            try await db.query(
                "UPDATE llm_batch_conversations SET status = 'failed', error = $2, finished_at = now() WHERE batch_id = $1 AND status = 'pending'",
                [id, String(error.prefix(2000))])
            try await db.query("UPDATE llm_batch_items SET status = 'failed' WHERE batch_id = $1 AND status = 'pending'", [id])
            try await db.query("UPDATE scan_watermarks SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1",
                               [BatchOptions.owner(id)])
        }
    }

    // MARK: Collect

    /// The batch `id`, its features named by `registry` (the collecting engine's).
    func record(_ id: UUID, registry: FeatureRegistry) async throws -> Record? {
        try await pool.query("SELECT id, run_id, status, remote_batch_id, features, prompts FROM llm_batches WHERE id = $1", [id])
            .first.map { try Self.record($0, registry: registry) }
    }

    /// Submitted batches, oldest first.
    func submitted(registry: FeatureRegistry) async throws -> [Record] {
        try await pool.query(
            "SELECT id, run_id, status, remote_batch_id, features, prompts FROM llm_batches WHERE status = 'submitted' ORDER BY created_at, id")
            .map { try Self.record($0, registry: registry) }
    }

    private static func record(_ row: PostgresRow, registry: FeatureRegistry) throws -> Record {
        let id: UUID = try row.decode("id")
        var features: [ExtractionFeature] = []
        for name in try row.decode("features", as: [String].self) {
            guard let feature = registry.feature(ExtractionFeature(name))?.id else {
                throw JobsError.invalidRecord("llm_batches \(id.uuidString.lowercased()): unknown feature '\(name)'")
            }
            features.append(feature)
        }
        let stored: [String: PromptRef]
        do {
            stored = try row.decode("prompts", as: JSONValue.self).decode([String: PromptRef].self)
        } catch {
            throw JobsError.invalidRecord("llm_batches \(id.uuidString.lowercased()).prompts is not valid: \(error)")
        }
        var prompts: [ExtractionFeature: PromptRef] = [:]
        for (name, ref) in stored { if let feature = registry.feature(ExtractionFeature(name))?.id { prompts[feature] = ref } }
        return Record(id: id, runID: try row.decode("run_id"), status: try row.decode("status"),
                      remoteBatchID: try row.decode("remote_batch_id"), features: features, prompts: prompts)
    }

    func updateRemote(_ id: UUID, _ remote: BatchObject) async throws {
        let counts = try remote.requestCounts.map { try JSONValue.encode($0) }
        try await pool.query(
            """
            UPDATE llm_batches SET remote_status = $2, output_file_id = $3, error_file_id = $4, request_counts = $5::jsonb,
                checked_at = now(), error = COALESCE($6, error)
            WHERE id = $1
            """, [id, remote.status.rawValue, remote.outputFileID, remote.errorFileID, counts,
                  remote.errors.isEmpty ? nil : String(remote.errors.joined(separator: "; ").prefix(2000))])
    }

    func pendingConversations(_ batchID: UUID, registry: FeatureRegistry) async throws -> [PendingConversation] {
        let itemRows = try await pool.query(
            """
            SELECT custom_id, conversation_id, feature, window_start, window_end FROM llm_batch_items
            WHERE batch_id = $1 AND status = 'pending' ORDER BY conversation_id, feature, window_start
            """, [batchID])
        var items: [UUID: [Item]] = [:]
        for row in itemRows {
            let name: String = try row.decode("feature")
            let combined = name == ExtractionEngine.combinedItem.rawValue ? ExtractionEngine.combinedItem : nil
            guard let feature = combined ?? registry.feature(ExtractionFeature(name))?.id else {
                throw JobsError.invalidRecord("llm_batch_items \(try row.decode("custom_id", as: String.self)): unknown feature '\(name)'")
            }
            let start: Int = try row.decode("window_start"), end: Int = try row.decode("window_end")
            items[try row.decode("conversation_id"), default: []].append(
                Item(customID: try row.decode("custom_id"), feature: feature, window: start..<max(start, end)))
        }
        let rows = try await pool.query(
            """
            SELECT conversation_id, input, watermark_message_id::text AS watermark_id, watermark_message_at
            FROM llm_batch_conversations WHERE batch_id = $1 AND status = 'pending' ORDER BY conversation_id
            """, [batchID])
        return try rows.map { row in
            let id: UUID = try row.decode("conversation_id")
            let watermarkID: String? = try row.decode("watermark_id")
            let watermarkAt: Date? = try row.decode("watermark_message_at")
            let watermark = watermarkID.flatMap { id in watermarkAt.map { InputMessage(id: id, senderID: "", sentAt: $0, text: "") } }
            return PendingConversation(conversationID: id, input: try row.decode("input"), watermark: watermark, items: items[id] ?? [])
        }
    }

    /// Locks the conversation's batch row if it is still pending; false when another collect already finished it.
    func lockPending(_ batchID: UUID, _ conversationID: UUID, on db: PostgresConnection) async throws -> Bool {
        try await !db.query(
            "SELECT 1 FROM llm_batch_conversations WHERE batch_id = $1 AND conversation_id = $2 AND status = 'pending' FOR UPDATE",
            [batchID, conversationID]).isEmpty
    }

    func markApplied(_ batchID: UUID, _ conversationID: UUID, on db: PostgresConnection) async throws {
        try await db.query(
            "UPDATE llm_batch_conversations SET status = 'applied', finished_at = now() WHERE batch_id = $1 AND conversation_id = $2",
            [batchID, conversationID])
        try await db.query("UPDATE llm_batch_items SET status = 'applied' WHERE batch_id = $1 AND conversation_id = $2", [batchID, conversationID])
    }

    /// Records the failure and releases the conversation so the next scan retries it (as `ScanQueue.fail` does).
    func markFailed(_ batchID: UUID, _ conversationID: UUID, error: String, item: String?, on db: PostgresConnection) async throws {
        let text = String(error.prefix(2000))
        try await db.query(
            "UPDATE llm_batch_conversations SET status = 'failed', error = $3, finished_at = now() WHERE batch_id = $1 AND conversation_id = $2",
            [batchID, conversationID, text])
        try await db.query(
            """
            UPDATE llm_batch_items SET status = 'failed', error = CASE WHEN custom_id = $3 THEN $4 END
            WHERE batch_id = $1 AND conversation_id = $2
            """, [batchID, conversationID, item, text])
        try await db.query(
            """
            UPDATE scan_watermarks SET failures = failures + 1, last_error = $2, lease_owner = NULL, lease_expires_at = NULL
            WHERE conversation_id = $1 AND lease_owner = $3
            """, [conversationID, text, BatchOptions.owner(batchID)])
    }

    func finish(_ id: UUID, status: BatchState) async throws {
        try await pool.query("UPDATE llm_batches SET status = $2, finished_at = now() WHERE id = $1", [id, status])
    }

    // MARK: Listing

    func list(limit: Int) async throws -> [BatchListing] {
        let rows = try await pool.query(
            """
            SELECT b.id, b.status, b.remote_batch_id, b.remote_status, b.requests, b.conversations, b.created_at, b.submitted_at,
                   b.finished_at, b.error,
                   (SELECT count(*) FROM llm_batch_conversations c WHERE c.batch_id = b.id AND c.status = 'applied') AS applied,
                   (SELECT count(*) FROM llm_batch_conversations c WHERE c.batch_id = b.id AND c.status = 'failed') AS failed
            FROM llm_batches b ORDER BY b.created_at DESC, b.id LIMIT $1
            """, [limit])
        return try rows.map { row in
            BatchListing(
                id: try row.decode("id"), status: try row.decode("status"), remoteBatchID: try row.decode("remote_batch_id"),
                remoteStatus: try row.decode("remote_status"), requests: try row.decode("requests"),
                conversations: try row.decode("conversations"), applied: try row.decode("applied"), failed: try row.decode("failed"),
                createdAt: try row.decode("created_at"), submittedAt: try row.decode("submitted_at"),
                finishedAt: try row.decode("finished_at"), error: try row.decode("error"))
        }
    }
}

/// One batch for `batch status`.
package struct BatchListing: Sendable, Codable {
    package let id: UUID
    package let status: BatchState
    package let remoteBatchID: String?
    package let remoteStatus: String?
    package let requests: Int
    package let conversations: Int
    package let applied: Int
    package let failed: Int
    package let createdAt: Date
    let submittedAt: Date?
    package let finishedAt: Date?
    package let error: String?
}
