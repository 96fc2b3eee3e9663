import Core
import Extractors
import Foundation
import Postgres

/// The scan's work queue in SQL: one `scan_watermarks` row per conversation, claimed with a lease under
/// `FOR UPDATE SKIP LOCKED`, so any number of scanners on any machines share the work without doing it twice.
struct ScanQueue: Sendable {
    let pool: PostgresPool
    let options: ScanOptions

    struct Claim: Sendable {
        let conversationID: UUID
        let watermark: ConversationReader.Watermark?
        /// The conversation's oldest backlog gap, if a newest-first read left one.
        var backlog: ConversationReader.Gap?
        /// Where it stands in the claim order.
        var position: Position

        init(conversationID: UUID, watermark: ConversationReader.Watermark?, backlog: ConversationReader.Gap? = nil, position: Position? = nil) {
            self.conversationID = conversationID
            self.watermark = watermark
            self.backlog = backlog
            self.position = position ?? Position(attemptedAt: "-infinity", epoch: -.infinity, conversationID: conversationID)
        }
    }

    /// A place in the claim order: least recently attempted first (`scan_watermarks.attempted_at`), then by id.
    struct Position: Sendable, Equatable {
        /// `attempted_at` as Postgres wrote it, bound back as is (it may be `-infinity`).
        let attemptedAt: String
        /// The same instant in seconds since 1970, for ordering here.
        let epoch: Double
        let conversationID: UUID

        /// Postgres's order of `(attempted_at, conversation_id)`.
        func precedes(_ other: Position) -> Bool {
            epoch != other.epoch ? epoch < other.epoch : ScanState.precedes(conversationID, other.conversationID)
        }
    }

    /// Gives every conversation a watermark row (no watermark yet = never scanned).
    func prepare() async throws {
        try await pool.query(
            "INSERT INTO scan_watermarks (conversation_id) SELECT id FROM conversations ON CONFLICT DO NOTHING")
    }

    /// Conversations of this shard with messages after their watermark (not counting future-dated ones already read),
    /// unless quarantined.
    /// A conversation with a backlog gap (`scan_backlog`) is pending too, and so is one with a message edited or deleted
    /// since its last read (`ConversationReader.edits`) or open per-user rows of a member who left (`LeftMembers`).
    static let pendingCondition = """
        w.quarantined_at IS NULL AND (EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = w.conversation_id AND ((m.deleted_at IS NULL
                AND (w.last_message_at IS NULL OR (messageai_utc(m.created_at), m.id) > (w.last_message_at, w.last_message_id))
                AND NOT EXISTS (SELECT 1 FROM scan_future_messages f WHERE f.conversation_id = m.conversation_id AND f.message_id = m.id))
              -- Edited or deleted since the last read (ConversationReader.edits), in the same pass over its messages.
              OR (w.last_message_at IS NOT NULL AND (messageai_utc(m.created_at), m.id) <= (w.last_message_at, w.last_message_id)
                AND (messageai_utc(COALESCE(m.deleted_at, m.updated_at)) > COALESCE(w.read_at, w.scanned_at)
                     AND messageai_utc(COALESCE(m.deleted_at, m.updated_at)) <= now()))))
            OR EXISTS (SELECT 1 FROM scan_backlog b WHERE b.conversation_id = w.conversation_id)
            -- A member left with open rows of hers there (LeftMembers closes them when it is scanned).
            OR (w.last_message_at IS NOT NULL AND (
              EXISTS (SELECT 1 FROM deadlines d WHERE d.conversation_id = w.conversation_id AND d.closed_at IS NULL AND d.user_id IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = d.conversation_id AND p.user_id = d.user_id))
              OR EXISTS (SELECT 1 FROM rsvp_tracking r WHERE r.conversation_id = w.conversation_id AND r.closed_at IS NULL AND r.user_id IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = r.conversation_id AND p.user_id = r.user_id)))))
        AND mod(abs(hashtext(w.conversation_id::text)), $1) = $2
        """

    /// Pending conversations of this shard that `runID` never claimed, and the first `limit` of them (oldest attempt
    /// first, the order a scan claims them): what a run that stopped early left for the next.
    func unreached(runID: UUID, limit: Int) async throws -> (count: Int, first: [UUID]) {
        let rows = try await pool.query(
            """
            SELECT w.conversation_id, count(*) OVER () AS n FROM scan_watermarks w
            WHERE \(Self.pendingCondition) AND w.claimed_by_run IS DISTINCT FROM $3
            ORDER BY w.attempted_at NULLS FIRST, w.conversation_id LIMIT $4
            """, [options.shardCount, options.shardIndex, runID, limit])
        return (try rows.first?.decode("n", as: Int.self) ?? 0, try rows.map { try $0.decode("conversation_id", as: UUID.self) })
    }

    func pendingCount() async throws -> Int {
        try await pool.query(
            "SELECT count(*) AS n FROM scan_watermarks w WHERE \(Self.pendingCondition)",
            [options.shardCount, options.shardIndex])[0].decode("n")
    }

    /// Claims the next conversation, skipping ones this run already tried and ones another scanner holds. A lease of a
    /// scan run that has ended is free whatever its expiry: the run could not release it (a lock held on the row). The run's
    /// own attempts are marked in the row (`claimed_by_run`), so each claim costs the same however long the run is.
    /// Conversations are claimed least recently attempted first (`attempted_at`, then id: see migration 140), so the
    /// ones that failed last night come after the others and the same failures are not first every night.
    /// `after` starts the search past the conversations this run has already claimed (in that order), so
    /// a claim does not re-check the pending condition (an `EXISTS` over messages) of every inactive conversation
    /// before the next pending one, and its cost does not grow with the run.
    /// The claim also beats the run's heartbeat (read by `markAbandonedScans` against the lease), at most once a second,
    /// so many workers claiming at once do not rewrite the run's `job_runs` row on every claim.
    func claimNext(runID: UUID, after: Position? = nil) async throws -> Claim? {
        let rows = try await pool.query(
            """
            WITH candidate AS (
              SELECT w.conversation_id FROM scan_watermarks w
              WHERE \(Self.pendingCondition)
                AND (w.lease_expires_at IS NULL OR w.lease_expires_at < now()
                     OR EXISTS (SELECT 1 FROM job_runs r WHERE r.id = w.claimed_by_run AND r.kind = 'scan' AND r.status <> 'running'))
                AND w.claimed_by_run IS DISTINCT FROM $3
                AND ($6::timestamptz IS NULL OR (w.attempted_at, w.conversation_id) > ($6::timestamptz, $7::uuid))
              ORDER BY w.attempted_at, w.conversation_id
              LIMIT 1
              FOR UPDATE SKIP LOCKED),
            beat AS (UPDATE job_runs SET heartbeat_at = now()
                     WHERE id = $3 AND (heartbeat_at IS NULL OR heartbeat_at < now() - interval '1 second'))
            UPDATE scan_watermarks w SET lease_owner = $4, lease_expires_at = now() + make_interval(secs => $5),
                claimed_by_run = $3
            FROM candidate LEFT JOIN LATERAL (
                SELECT b.after_at, b.after_id, b.before_at, b.before_id FROM scan_backlog b
                WHERE b.conversation_id = candidate.conversation_id ORDER BY b.after_at, b.after_id LIMIT 1) AS gap ON true
            WHERE w.conversation_id = candidate.conversation_id
            RETURNING w.conversation_id, w.last_message_at, w.last_message_id, gap.after_at, gap.after_id, gap.before_at, gap.before_id,
                w.attempted_at::text AS attempted_at, extract(epoch FROM w.attempted_at)::float8 AS attempted_epoch
            """,
            [options.shardCount, options.shardIndex, runID, options.owner, options.lease.wholeSeconds, after?.attemptedAt, after?.conversationID])
        guard let row = rows.first else { return nil }
        func position(_ at: String, _ id: String) throws -> ConversationReader.Watermark? {
            guard let at = try row.decode(at, as: Date?.self), let id = try row.decode(id, as: UUID?.self) else { return nil }
            return ConversationReader.Watermark(sentAt: at, messageID: id)
        }
        let id: UUID = try row.decode("conversation_id")
        var claim = Claim(conversationID: id, watermark: try position("last_message_at", "last_message_id"),
                          position: Position(attemptedAt: try row.decode("attempted_at"), epoch: try row.decode("attempted_epoch"), conversationID: id))
        if let after = try position("after_at", "after_id"), let before = try position("before_at", "before_id") {
            claim.backlog = ConversationReader.Gap(after: after, before: before)
        }
        return claim
    }

    /// Pending conversations of this shard that another scanner holds a live lease on, and when the last lease ends.
    func leasedElsewhere() async throws -> (count: Int, until: Date?) {
        let row = try await pool.query(
            """
            SELECT count(*) AS n, max(w.lease_expires_at) AS until FROM scan_watermarks w
            WHERE \(Self.pendingCondition) AND w.lease_expires_at >= now() AND w.lease_owner IS DISTINCT FROM $3
              AND NOT EXISTS (SELECT 1 FROM job_runs r WHERE r.id = w.claimed_by_run AND r.kind = 'scan' AND r.status <> 'running')
            """, [options.shardCount, options.shardIndex, options.owner])[0]
        return (try row.decode("n"), try row.decode("until", as: Date?.self))
    }

    /// Moves the watermark and releases the claim; called inside the transaction that writes the rows. Throws
    /// `ScanLeaseLost` (rolling the transaction back) when `owner` no longer holds the lease. `message` is the last
    /// one read, its time clamped to the read (`ConversationReader.Read`); `futureDated` (read as of `readAt`) are
    /// recorded as read, so they are not new again while their `created_at` is still ahead of the watermark.
    /// `overflow` and `backlogRead` (a newest-first read, `ConversationReader.Read`) add a backlog gap and move or
    /// delete the one read.
    static func advance(_ conversationID: UUID, to message: InputMessage?, futureDated: [UUID] = [], readAt: Date? = nil,
                        overflow: ConversationReader.Gap? = nil, backlogRead: ConversationReader.BacklogRead? = nil,
                        runID: UUID, owner: String, on db: PostgresConnection) async throws {
        if let overflow {
            try await db.query(
                """
                INSERT INTO scan_backlog (conversation_id, after_at, after_id, before_at, before_id, run_id)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
                """, [conversationID, overflow.after.sentAt, overflow.after.messageID, overflow.before.sentAt, overflow.before.messageID, runID])
        }
        if let backlogRead {
            let gap = backlogRead.gap
            if backlogRead.done {
                try await db.query("DELETE FROM scan_backlog WHERE conversation_id = $1 AND after_at = $2 AND after_id = $3",
                                   [conversationID, gap.after.sentAt, gap.after.messageID])
            } else if let through = backlogRead.through {
                try await db.query(
                    "UPDATE scan_backlog SET after_at = $4, after_id = $5 WHERE conversation_id = $1 AND after_at = $2 AND after_id = $3",
                    [conversationID, gap.after.sentAt, gap.after.messageID, through.sentAt, through.messageID])
            }
        }
        if !futureDated.isEmpty, let readAt {
            try await db.query(
                """
                INSERT INTO scan_future_messages (conversation_id, message_id, scanned_as, run_id)
                SELECT $1, m.id, $3, $4 FROM messages m WHERE m.conversation_id = $1 AND m.id = ANY($2::uuid[])
                ON CONFLICT DO NOTHING
                """, [conversationID, futureDated, readAt, runID])
        }
        let updated = try await db.query(
            """
            UPDATE scan_watermarks SET last_message_at = COALESCE($2, last_message_at),
                last_message_id = COALESCE($3::uuid, last_message_id), scanned_at = now(), run_id = $4, read_at = COALESCE($6, read_at),
                lease_owner = NULL, lease_expires_at = NULL, attempted_at = now(), failures = 0, last_error = NULL,
                failure_signature = NULL, same_failures = 0, quarantined_at = NULL, quarantine_reason = NULL
            WHERE conversation_id = $1 AND lease_owner = $5
            """, [conversationID, message?.sentAt, message?.id, runID, owner, readAt])
        // Our lease expired and someone else took the conversation: do not commit over their work.
        guard updated.affectedRows == 1 else { throw ScanLeaseLost(conversationID: conversationID, owner: owner) }
    }

    /// True when this run committed the conversation (its watermark names the run and its lease is released).
    func committed(_ conversationID: UUID, runID: UUID) async throws -> Bool {
        try await !pool.query(
            "SELECT 1 FROM scan_watermarks WHERE conversation_id = $1 AND run_id = $2 AND lease_owner IS NULL",
            [conversationID, runID]).isEmpty
    }

    /// Which of `conversationIDs` this run committed: `committed` for many at once.
    func committed(among conversationIDs: [UUID], runID: UUID) async throws -> Set<UUID> {
        guard !conversationIDs.isEmpty else { return [] }
        return try await Set(pool.query(
            "SELECT conversation_id FROM scan_watermarks WHERE conversation_id = ANY($1::uuid[]) AND run_id = $2 AND lease_owner IS NULL",
            [conversationIDs, runID]).map { try $0.decode("conversation_id", as: UUID.self) })
    }

    /// Gives a claimed conversation back untouched (its work was interrupted), so the next scan takes it at once.
    /// Bounded by the lock timeout, like `fail`: a row lock held elsewhere leaves the lease to expire instead.
    func release(_ conversationID: UUID) async throws {
        try await pool.transaction { db in
            if let wait = options.lockTimeout { try await db.query("SELECT set_config('lock_timeout', $1, true)", [wait.postgresMilliseconds]) }
            try await db.query(
                "UPDATE scan_watermarks SET lease_owner = NULL, lease_expires_at = NULL WHERE conversation_id = $1 AND lease_owner = $2",
                [conversationID, options.owner])
        }
    }

    /// Releases every lease this run still holds (after a cancellation, a claim may have landed that no worker got to
    /// process); bounded by the lock timeout. Returns how many.
    @discardableResult
    func releaseAll(runID: UUID) async throws -> Int {
        try await pool.transaction { db in
            if let wait = options.lockTimeout { try await db.query("SELECT set_config('lock_timeout', $1, true)", [wait.postgresMilliseconds]) }
            return try await db.query(
                "UPDATE scan_watermarks SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND claimed_by_run = $2",
                [options.owner, runID]).affectedRows
        }
    }

    /// Records a failure and releases the claim so the next scan tries again; quarantines the conversation when this is
    /// the `quarantineAfter`-th scan in a row that failed with the same `signature` (nil: a failure that passes on its
    /// own, which neither counts nor breaks the streak). Returns true when this call quarantined it.
    /// Bounded by `lockWait`: after a lock timeout this write gives up at once instead of waiting a second time for the
    /// same lock (the lease then expires on its own).
    @discardableResult
    func fail(_ conversationID: UUID, error: String, signature: String?, answers: [ModelAnswer] = [], lockWait: Duration? = nil) async throws -> Bool {
        try await pool.transaction { db in
            if let wait = lockWait ?? options.lockTimeout {
                try await db.query("SELECT set_config('lock_timeout', $1, true)", [wait.postgresMilliseconds])
            }
            let rows = try await db.query(
                """
                UPDATE scan_watermarks SET failures = failures + 1, last_error = $2, lease_owner = NULL, lease_expires_at = NULL,
                    attempted_at = now(),
                    same_failures = CASE WHEN $4::text IS NULL THEN same_failures
                                         WHEN failure_signature = $4::text THEN same_failures + 1 ELSE 1 END,
                    failure_signature = COALESCE($4::text, failure_signature),
                    quarantined_at = CASE WHEN $4::text IS NOT NULL AND $5::int > 0
                                               AND (CASE WHEN failure_signature = $4::text THEN same_failures + 1 ELSE 1 END) >= $5::int
                                          THEN now() ELSE quarantined_at END,
                    quarantine_reason = CASE WHEN $4::text IS NOT NULL AND $5::int > 0
                                                  AND (CASE WHEN failure_signature = $4::text THEN same_failures + 1 ELSE 1 END) >= $5::int
                                             THEN $2 ELSE quarantine_reason END,
                    recent_failures = \(Quarantine.prependFailureSQL)
                WHERE conversation_id = $1 AND lease_owner = $3
                RETURNING quarantined_at IS NOT NULL AND quarantined_at = now() AS quarantined
                """, [conversationID, String(error.withoutNULs.prefix(2000)), options.owner, signature, options.quarantineAfter,
                      answers.isEmpty ? JSONValue.null : try JSONValue.encode(answers)])
            return try rows.first?.decode("quarantined", as: Bool.self) ?? false
        }
    }

    /// Takes every quarantined conversation of this shard out of quarantine (`scan --retry-quarantined`); their
    /// failure count starts again. Returns how many.
    func releaseQuarantine() async throws -> Int {
        try await Quarantine(pool: pool).release(.shard(count: options.shardCount, index: options.shardIndex)).count
    }

    /// Quarantined conversations of this shard, for the run's summary.
    func quarantinedCount() async throws -> Int {
        try await pool.query(
            "SELECT count(*) AS n FROM scan_watermarks w WHERE w.quarantined_at IS NOT NULL AND mod(abs(hashtext(w.conversation_id::text)), $1) = $2",
            [options.shardCount, options.shardIndex])[0].decode("n")
    }
}
