import Core
package import Foundation
package import Postgres
package import JobsKit

/// What ran, from `job_runs`, for `messageai-jobs runs`: the newest runs first, each with its counts, tokens, cost
/// and the build and prompts it ran with; one run's failures for `runs show`.
package struct RunHistory: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// One `job_runs` row as an operator reads it.
    package struct Run: Sendable, Codable, Equatable {
        package var id: UUID
        package var kind: String
        package var status: String
        package var startedAt: Date
        package var finishedAt: Date?
        /// Finished minus started; for a run still open, so far.
        package var seconds: Double
        package var provider: String?
        package var model: String?
        package var conversations: Int
        package var conversationsFailed: Int
        /// Users a proactive pass looked at, and those it failed for (nil for other kinds).
        package var users: Int?
        package var usersFailed: Int?
        /// What the run counted per feature or table (`job_runs.item_counts`, without the grounding tallies).
        package var items: [String: Int]
        package var modelRequests: Int
        package var promptTokens: Int64
        package var completionTokens: Int64
        package var cachedPromptTokens: Int64
        /// At list prices; nil when unknown (an unpriced model, or a run that ended before it was priced).
        package var costUSD: Double?
        package var buildVersion: String?
        package var buildCommit: String?
        package var promptSetSHA256: String?
        package var prompts: [Prompt]
        package var error: String?
        /// For a run shown `abandoned` that no job has marked yet: when its heartbeat ran out (its last promise to be alive).
        package var lapsedAt: Date?
        /// What the run was for, from its options: an extract's conversation, an assist's user, a proactive pass
        /// (`mode`), and whether it was a dry run (its answers shown, nothing written).
        package var conversationID: UUID?
        package var userID: UUID?
        package var mode: String?
        package var dryRun = false
        package var shard: String?

        package struct Prompt: Sendable, Codable, Equatable {
            package var id: String
            package var version: Int
            package var sha256: String
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, status, seconds, provider, model, conversations, users, items, prompts, error
            case usersFailed = "users_failed", lapsedAt = "lapsed_at", conversationID = "conversation_id", userID = "user_id"
            case mode, dryRun = "dry_run", shard
            case startedAt = "started_at", finishedAt = "finished_at", conversationsFailed = "conversations_failed"
            case modelRequests = "model_requests", promptTokens = "prompt_tokens", completionTokens = "completion_tokens"
            case cachedPromptTokens = "cached_prompt_tokens", costUSD = "cost_usd", buildVersion = "build_version"
            case buildCommit = "build_commit", promptSetSHA256 = "prompt_set_sha256"
        }

        /// `$0.0123`, or `unknown`.
        package var costText: String { costUSD.map { String(format: "$%.4f", $0) } ?? "unknown" }
        package var itemsTotal: Int { items.values.reduce(0, +) }
    }

    /// Which runs to list.
    package struct Filter: Sendable {
        package var since: Date?
        /// Only runs that did not succeed fully: failed, partial, abandoned, or with a failed conversation.
        package var failedOnly = false
        package var kind: String?
        package var limit = 20

        package init(since: Date? = nil, failedOnly: Bool = false, kind: String? = nil, limit: Int = 20) {
            self.since = since
            self.failedOnly = failedOnly
            self.kind = kind
            self.limit = limit
        }
    }

    /// A run with what it failed at.
    package struct Detail: Sendable, Codable {
        package var run: Run
        /// The failures the run recorded (its first `RunFailure.recordedLimit`); for a run that recorded none but
        /// ended with an error, that error, against the conversation or user the run was for.
        package var failures: [RunFailure]
        /// How many of the run's failures are not listed.
        package var unlisted: Int
        /// The `job_requests` this run served (worker runs).
        package var requests: [Int64]
        /// The conversations this scan quarantined, as they stand now (released since, or still in quarantine).
        package var quarantined: [Quarantine.Entry] = []
        /// Conversations of the scan's shard in quarantine when it ended (scan runs).
        package var quarantinedTotal: Int?
        /// Conversations a scan gave back untouched (an outage) and the first of them; nil for runs that record none.
        package var deferred: Int?
        package var deferredConversations: [UUID] = []
        /// Pending conversations a scan that stopped early never reached, and the first of them.
        package var unreached: Int?
        package var unreachedConversations: [UUID] = []
        /// Conversations whose answers were re-asked and then passed, with the answers that were not used.
        package var reasked: [RunFailure] = []

        enum CodingKeys: String, CodingKey {
            case run, failures, unlisted, requests, quarantined, quarantinedTotal = "quarantined_total", reasked
            case deferred, deferredConversations = "deferred_conversations", unreached, unreachedConversations = "unreached_conversations"
        }
    }

    /// A `running` row whose heartbeat ran out is shown `abandoned` (with the time it lapsed) at once, whether or not
    /// a later job has marked it yet: its process is gone.
    static let columns = """
        id, kind, CASE WHEN status = 'running' AND \(JobRunRecorder.lapsed) THEN 'abandoned' ELSE status END AS status,
        CASE WHEN status = 'running' AND \(JobRunRecorder.lapsed) THEN COALESCE(alive_until, heartbeat_at, started_at) END AS lapsed_at,
        started_at, finished_at,
        EXTRACT(EPOCH FROM (COALESCE(finished_at, now()) - started_at))::float8 AS seconds,
        provider, model, conversations_processed, conversations_failed, item_counts, requests,
        prompt_tokens, completion_tokens, cached_prompt_tokens, estimated_cost_usd::float8 AS cost,
        build_version, build_commit, prompt_set_sha256, prompts, error, options
        """

    /// The newest runs matching `filter`, newest first.
    package func list(_ filter: Filter = Filter()) async throws -> [Run] {
        let rows = try await pool.query(
            """
            SELECT * FROM (SELECT \(Self.columns) FROM job_runs r) AS r
            WHERE ($1::timestamptz IS NULL OR started_at >= $1::timestamptz)
              AND (NOT $2::boolean OR status IN ('failed', 'partial', 'abandoned') OR conversations_failed > 0)
              AND ($3::text IS NULL OR kind = $3::text)
            ORDER BY started_at DESC, id
            LIMIT $4
            """, [filter.since, filter.failedOnly, filter.kind, filter.limit])
        return try rows.map(Self.run)
    }

    /// One run and its failures; nil when there is no run with that id.
    package func show(_ id: UUID) async throws -> Detail? {
        let rows = try await pool.query("SELECT \(Self.columns), details FROM job_runs r WHERE id = $1", [id])
        guard let row = rows.first else { return nil }
        let run = try Self.run(row)
        let details: JSONValue = try row.decode("details")
        var failures: [RunFailure] = []
        if let recorded = details["failures"], let decoded = try? recorded.decode([RunFailure].self) { failures = decoded }
        if failures.isEmpty, let error = run.error, run.status != "succeeded" {
            let options: JSONValue = try row.decode("options")
            failures = [RunFailure(conversationID: options["conversation_id"]?.stringValue.flatMap(UUID.init(uuidString:)),
                                   userID: options["user_id"]?.stringValue.flatMap(UUID.init(uuidString:)), error: error)]
        }
        let requests = try await pool.query("SELECT id FROM job_requests WHERE run_id = $1 ORDER BY id", [id])
            .map { try $0.decode("id", as: Int64.self) }
        let quarantinedIDs = (details["quarantined"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(UUID.init(uuidString:)) }
        var quarantined: [Quarantine.Entry] = []
        for id in quarantinedIDs { if let entry = try await Quarantine(pool: pool).show(id) { quarantined.append(entry) } }
        func ids(_ key: String) -> [UUID] { (details[key]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(UUID.init(uuidString:)) } }
        return Detail(run: run, failures: failures, unlisted: max(0, run.conversationsFailed + (run.usersFailed ?? 0) - failures.count),
                      requests: requests, quarantined: quarantined,
                      quarantinedTotal: details["quarantined_total"]?.integerValue.map { Int($0) },
                      deferred: details["deferred"]?.integerValue.map { Int($0) }, deferredConversations: ids("deferred_conversations"),
                      unreached: details["unreached"]?.integerValue.map { Int($0) }, unreachedConversations: ids("unreached_conversations"),
                      reasked: details["reasked"].flatMap { try? $0.decode([RunFailure].self) } ?? [])
    }

    static func run(_ row: PostgresRow) throws -> Run {
        let counts: JSONValue = try row.decode("item_counts")
        var items: [String: Int] = [:]
        var users: Int?
        var usersFailed: Int?
        for (key, value) in counts.objectValue ?? JSONObject() {
            guard let count = value.integerValue else { continue }  // e.g. the grounding tallies
            switch key {
            case "users": users = Int(count)
            case "users_failed": usersFailed = Int(count)
            default: items[key] = Int(count)
            }
        }
        let prompts: JSONValue = try row.decode("prompts")
        var run = Run(
            id: try row.decode("id"), kind: try row.decode("kind"), status: try row.decode("status"),
            startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
            seconds: try row.decode("seconds"), provider: try row.decode("provider"), model: try row.decode("model"),
            conversations: try row.decode("conversations_processed"), conversationsFailed: try row.decode("conversations_failed"),
            users: users, usersFailed: usersFailed, items: items, modelRequests: try row.decode("requests"),
            promptTokens: try row.decode("prompt_tokens"), completionTokens: try row.decode("completion_tokens"),
            cachedPromptTokens: try row.decode("cached_prompt_tokens"), costUSD: try row.decode("cost"),
            buildVersion: try row.decode("build_version"), buildCommit: try row.decode("build_commit"),
            promptSetSHA256: try row.decode("prompt_set_sha256"),
            prompts: (try? prompts.decode([Run.Prompt].self)) ?? [], error: try row.decode("error"))
        let options: JSONValue = try row.decode("options")
        run.conversationID = options["conversation_id"]?.stringValue.flatMap(UUID.init(uuidString:))
        run.userID = options["user_id"]?.stringValue.flatMap(UUID.init(uuidString:))
        run.mode = options["mode"]?.stringValue
        run.dryRun = options["dry_run"]?.boolValue ?? false
        run.shard = options["shard"]?.stringValue.flatMap { $0 == "0/1" ? nil : $0 }
        if let lapsed: Date = try row.decode("lapsed_at", as: Date?.self) {
            run.lapsedAt = lapsed
            run.seconds = max(0, lapsed.timeIntervalSince(run.startedAt))
            run.error = run.error ?? JobRunRecorder.abandonedError
        }
        return run
    }

    /// `--since`: an ISO 8601 date (midnight UTC), an ISO 8601 timestamp with its offset, or a duration back from
    /// `now` such as `90m`, `24h`, `7d`.
    package static func since(_ text: String, now: Date = Date()) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, let amount = Double(trimmed.dropLast()), amount >= 0, amount.isFinite {
            let seconds: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            case "w": 604_800
            default: nil
            }
            if let seconds { return now.addingTimeInterval(-amount * seconds) }
        }
        if let instant = ISO8601Instant.parse(trimmed) { return instant }
        if let day = LocalDate(iso: trimmed) { return Date(timeIntervalSince1970: Double(day.daysSinceEpoch) * 86_400) }
        throw JobsError.invalidInput(
            "'\(text)' is neither a date (2026-11-24), a timestamp (2026-11-24T06:00:00Z) nor a duration (90m, 24h, 7d)")
    }
}
