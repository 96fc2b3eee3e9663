package import Foundation
package import Extractors
import Core
package import Postgres

/// Conversations that failed the same way on several scans in a row (see `FailureSignature`), as an operator finds,
/// reads and releases them (`messageai-jobs quarantine list|show|release`), without SQL. A quarantined conversation is
/// passed over by every scan until it is released; a release keeps its failure history.
package struct Quarantine: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// Failures `scan_watermarks.recent_failures` keeps per conversation.
    static let recentLimit = 5

    /// The `SET recent_failures = …` expression of `ScanQueue.fail`: the failure ($2 its error, $4 its signature)
    /// put first, the list cut to `recentLimit`.
    static let prependFailureSQL = """
        (SELECT COALESCE(jsonb_agg(f.e ORDER BY f.n), '[]'::jsonb) FROM jsonb_array_elements(
            jsonb_build_array(jsonb_build_object('at', now(), 'run_id', claimed_by_run, 'error', $2::text, 'signature', $4::text)
                              || jsonb_strip_nulls(jsonb_build_object('answers', $6::jsonb)))
            || recent_failures) WITH ORDINALITY AS f(e, n) WHERE f.n <= \(recentLimit))
        """

    /// One quarantined (or, for `show`, any scanned) conversation.
    package struct Entry: Sendable, Codable, Equatable {
        package var conversationID: UUID
        package var conversationName: String?
        package var quarantinedAt: Date?
        /// Scans in a row that failed with `signature`.
        package var sameFailures: Int
        /// Every failed scan since the last success.
        package var failures: Int
        package var signature: String?
        /// The error that quarantined it.
        package var reason: String?
        package var lastError: String?
        /// Its last failures, newest first (at most `recentLimit`).
        package var recent: [Failure]

        package var isQuarantined: Bool { quarantinedAt != nil }

        enum CodingKeys: String, CodingKey {
            case conversationID = "conversation_id", conversationName = "conversation_name", quarantinedAt = "quarantined_at"
            case sameFailures = "same_failures", failures, signature, reason, lastError = "last_error", recent = "recent_failures"
            case quarantined
        }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            conversationID = try c.decode(UUID.self, forKey: .conversationID)
            conversationName = try c.decodeIfPresent(String.self, forKey: .conversationName)
            quarantinedAt = try c.decodeIfPresent(Date.self, forKey: .quarantinedAt)
            sameFailures = try c.decode(Int.self, forKey: .sameFailures)
            failures = try c.decode(Int.self, forKey: .failures)
            signature = try c.decodeIfPresent(String.self, forKey: .signature)
            reason = try c.decodeIfPresent(String.self, forKey: .reason)
            lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
            recent = try c.decodeIfPresent([Failure].self, forKey: .recent) ?? []
        }

        init(conversationID: UUID, conversationName: String?, quarantinedAt: Date?, sameFailures: Int, failures: Int,
             signature: String?, reason: String?, lastError: String?, recent: [Failure]) {
            self.conversationID = conversationID
            self.conversationName = conversationName
            self.quarantinedAt = quarantinedAt
            self.sameFailures = sameFailures
            self.failures = failures
            self.signature = signature
            self.reason = reason
            self.lastError = lastError
            self.recent = recent
        }

        /// Snake-case keys and lower-case ids, like the database.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(conversationID.uuidString.lowercased(), forKey: .conversationID)
            try c.encode(conversationName, forKey: .conversationName)
            try c.encode(isQuarantined, forKey: .quarantined)
            try c.encode(quarantinedAt, forKey: .quarantinedAt)
            try c.encode(sameFailures, forKey: .sameFailures)
            try c.encode(failures, forKey: .failures)
            try c.encode(signature, forKey: .signature)
            try c.encode(reason, forKey: .reason)
            try c.encode(lastError, forKey: .lastError)
            try c.encode(recent, forKey: .recent)
        }
    }

    /// One recorded failure of a conversation.
    package struct Failure: Sendable, Codable, Equatable {
        package var at: Date
        package var runID: UUID?
        package var error: String
        /// Nil for an outage (it did not count toward quarantine).
        package var signature: String?
        /// What the model said in the answers that failed (redacted, bounded); nil when none was kept.
        package var answers: [ModelAnswer]?

        enum CodingKeys: String, CodingKey { case at, runID = "run_id", error, signature, counted, answers }

        package init(at: Date, runID: UUID?, error: String, signature: String?, answers: [ModelAnswer]? = nil) {
            self.at = at
            self.runID = runID
            self.error = error
            self.signature = signature
            self.answers = answers
        }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            at = try c.decode(Date.self, forKey: .at)
            runID = try c.decodeIfPresent(UUID.self, forKey: .runID)
            error = try c.decode(String.self, forKey: .error)
            signature = try c.decodeIfPresent(String.self, forKey: .signature)
            answers = try c.decodeIfPresent([ModelAnswer].self, forKey: .answers)
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(at, forKey: .at)
            try c.encode(runID?.uuidString.lowercased(), forKey: .runID)
            try c.encode(error, forKey: .error)
            try c.encode(signature, forKey: .signature)
            try c.encode(signature != nil, forKey: .counted)
            try c.encodeIfPresent(answers, forKey: .answers)
        }
    }

    static let entryColumns = """
        w.conversation_id, c.name AS conversation_name, w.quarantined_at, w.same_failures, w.failures, w.failure_signature,
        w.quarantine_reason, w.last_error, w.recent_failures
        """

    /// Quarantined conversations, longest in quarantine first.
    package func list(limit: Int = 1000) async throws -> [Entry] {
        try await pool.query(
            """
            SELECT \(Self.entryColumns) FROM scan_watermarks w LEFT JOIN conversations c ON c.id = w.conversation_id
            WHERE w.quarantined_at IS NOT NULL ORDER BY w.quarantined_at, w.conversation_id LIMIT $1
            """, [limit]).map(Self.entry)
    }

    /// How many conversations are in quarantine.
    package func count() async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM scan_watermarks WHERE quarantined_at IS NOT NULL")[0].decode("n")
    }

    /// One conversation's quarantine state and last failures; nil when no scan has seen it.
    package func show(_ conversationID: UUID) async throws -> Entry? {
        try await pool.query(
            """
            SELECT \(Self.entryColumns) FROM scan_watermarks w LEFT JOIN conversations c ON c.id = w.conversation_id
            WHERE w.conversation_id = $1
            """, [conversationID]).first.map(Self.entry)
    }

    /// Which quarantined conversations a release takes out.
    package enum Scope: Sendable, Equatable {
        case conversation(UUID)
        case all
        /// The conversations of one scan shard (`scan --retry-quarantined`).
        case shard(count: Int, index: Int)
    }

    /// Takes the conversations of `scope` out of quarantine: the next scan tries them again and their count of
    /// failures in a row starts over; their failure history stays. Returns the conversations released.
    @discardableResult
    package func release(_ scope: Scope) async throws -> [UUID] {
        let (id, count, index): (UUID?, Int?, Int?) = switch scope {
        case .conversation(let id): (id, nil, nil)
        case .all: (nil, nil, nil)
        case .shard(let count, let index): (nil, count, index)
        }
        return try await pool.query(
            """
            UPDATE scan_watermarks w SET quarantined_at = NULL, quarantine_reason = NULL, same_failures = 0, failure_signature = NULL
            WHERE w.quarantined_at IS NOT NULL AND ($1::uuid IS NULL OR w.conversation_id = $1::uuid)
              AND ($2::int IS NULL OR mod(abs(hashtext(w.conversation_id::text)), $2::int) = $3::int)
            RETURNING w.conversation_id
            """, [id, count, index]).map { try $0.decode("conversation_id", as: UUID.self) }
    }

    static func entry(_ row: PostgresRow) throws -> Entry {
        let recent: JSONValue = try row.decode("recent_failures")
        return Entry(
            conversationID: try row.decode("conversation_id"), conversationName: try row.decode("conversation_name"),
            quarantinedAt: try row.decode("quarantined_at"), sameFailures: try row.decode("same_failures"),
            failures: try row.decode("failures"), signature: try row.decode("failure_signature"),
            reason: try row.decode("quarantine_reason"), lastError: try row.decode("last_error"),
            recent: (recent.arrayValue ?? []).compactMap(Self.failure))
    }

    /// One entry of `recent_failures`; nil for one that does not read (it is left out, not fatal to the listing).
    static func failure(_ value: JSONValue) -> Failure? {
        guard let at = value["at"]?.stringValue.flatMap(Self.timestamp), let error = value["error"]?.stringValue else { return nil }
        return Failure(at: at, runID: value["run_id"]?.stringValue.flatMap(UUID.init(uuidString:)), error: error,
                       signature: value["signature"]?.stringValue, answers: value["answers"].flatMap { try? $0.decode([ModelAnswer].self) })
    }

    /// Postgres's JSON timestamps: "2026-11-27T03:45:00.123456+00:00".
    static func timestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
