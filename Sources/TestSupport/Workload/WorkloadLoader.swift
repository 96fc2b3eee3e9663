import Foundation
package import Postgres

/// Writes a workload with multi-row `unnest` inserts in batches, in one transaction, so thousands of
/// conversations load in seconds. Rows are inserted only when missing (loading the same workload twice adds
/// nothing); watermarks of the workload's conversations are always reset to "scanned up to the last day".
package struct WorkloadLoader: Sendable {
    package struct Report: Sendable, Codable {
        package var users = 0
        package var conversations = 0
        package var participants = 0
        package var messages = 0
        package var activeConversations = 0
        /// Messages on the last day: what a scan will read as new.
        package var newMessages = 0
        package var watermarks = 0
        package var seconds = 0.0
    }

    package let pool: PostgresPool
    package var batchSize: Int

    package init(pool: PostgresPool, batchSize: Int = 5000) {
        self.pool = pool
        self.batchSize = max(1, batchSize)
    }

    package func load(_ workload: Workload) async throws -> Report {
        let started = Date()
        var report = Report()
        report.users = workload.users.count
        report.conversations = workload.conversations.count
        report.messages = workload.messages.count
        report.activeConversations = workload.activeConversations
        report.newMessages = workload.newMessages
        report.watermarks = workload.watermarks.count
        // Bounds per conversation: created at its first message, updated at its last (so the app's
        // per-message trigger finds nothing to move).
        var first: [UUID: Int] = [:], last: [UUID: Int] = [:]
        for message in workload.messages {
            let at = Self.seconds(message.sentAt)
            first[message.conversationID] = min(first[message.conversationID] ?? at, at)
            last[message.conversationID] = max(last[message.conversationID] ?? at, at)
        }
        let fallback = Self.seconds(workload.lastDayStart)
        let size = batchSize
        report.participants = workload.conversations.reduce(0) { $0 + $1.participantIDs.count }
        try await pool.transaction { db in
            // to_timestamp() gives instants; the app's columns are TIMESTAMP (UTC wall clock) or TIMESTAMPTZ, and the
            // conversion between them follows the session's zone: UTC for this transaction, whatever the server says.
            try await db.query("SET LOCAL TimeZone = 'UTC'")
            // The service's check on user_settings.time_zone looks the zone up in pg_timezone_names, which is slow per
            // row: most of the load time of a large workload. The generator's zones are a fixed list of IANA names
            // (`WorkloadGenerator.zones`), so a superuser inserts those rows with triggers off
            // (session_replication_role = replica, for that statement only). Other roles keep the check.
            let superuser: Bool = try await db.query("SELECT rolsuper AS s FROM pg_roles WHERE rolname = current_user").first?.decode("s") ?? false
            for batch in workload.users.chunked(size) {
                try await db.query(
                    "INSERT INTO auth.users (id, email) SELECT id, u || '@bench.example' FROM unnest($1::uuid[], $2::text[]) AS a(id, u) ON CONFLICT (id) DO NOTHING",
                    [batch.map(\.id), batch.map(\.username)])
                try await db.query(
                    """
                    INSERT INTO users (id, email, username, display_name)
                    SELECT id, username || '@bench.example', username, display FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, username, display)
                    ON CONFLICT DO NOTHING
                    """, [batch.map(\.id), batch.map(\.username), batch.map(\.displayName)])
                if superuser { try await db.query("SET LOCAL session_replication_role = replica") }
                try await db.query(
                    """
                    INSERT INTO user_settings (user_id, time_zone) SELECT * FROM unnest($1::uuid[], $2::text[])
                    ON CONFLICT (user_id) DO NOTHING
                    """, [batch.map(\.id), batch.map(\.timeZone)])
                if superuser { try await db.query("SET LOCAL session_replication_role = origin") }
            }
            for batch in workload.conversations.chunked(size) {
                try await db.query(
                    """
                    INSERT INTO conversations (id, name, is_group, created_at, updated_at)
                    SELECT id, name, is_group, to_timestamp(created), to_timestamp(updated)
                    FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::bigint[], $5::bigint[]) AS c(id, name, is_group, created, updated)
                    ON CONFLICT DO NOTHING
                    """, [batch.map(\.id), batch.map(\.name), batch.map(\.isGroup),
                          batch.map { first[$0.id] ?? fallback }, batch.map { last[$0.id] ?? fallback }])
                let pairs = batch.flatMap { conversation in conversation.participantIDs.map { (conversation.id, $0) } }
                try await db.query(
                    """
                    INSERT INTO conversation_participants (conversation_id, user_id, joined_at)
                    SELECT c, u, to_timestamp(j) FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS p(c, u, j)
                    ON CONFLICT DO NOTHING
                    """, [pairs.map(\.0), pairs.map(\.1), pairs.map { first[$0.0] ?? fallback }])
                try await db.query("DELETE FROM scan_watermarks WHERE conversation_id = ANY($1::uuid[])", [batch.map(\.id)])
            }
            for batch in workload.messages.chunked(size) {
                try await db.query(
                    """
                    INSERT INTO messages (id, conversation_id, sender_id, content, created_at, updated_at)
                    SELECT id, c, s, t, to_timestamp(at), to_timestamp(at)
                    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::bigint[]) AS m(id, c, s, t, at)
                    ON CONFLICT DO NOTHING
                    """, [batch.map(\.id), batch.map(\.conversationID), batch.map(\.senderID), batch.map(\.text),
                          batch.map { Self.seconds($0.sentAt) }])
            }
            for batch in workload.watermarks.chunked(size) {
                try await db.query(
                    """
                    INSERT INTO scan_watermarks (conversation_id, last_message_at, last_message_id, scanned_at)
                    SELECT c, to_timestamp(at), m, to_timestamp(at) FROM unnest($1::uuid[], $2::bigint[], $3::uuid[]) AS w(c, at, m)
                    """, [batch.map(\.conversationID), batch.map { Self.seconds($0.sentAt) }, batch.map(\.messageID)])
            }
        }
        // A database that has been running has statistics; freshly bulk-loaded tables have none until autovacuum
        // gets to them, and without them the scan's claim query is planned as a hash join over every message.
        try await pool.query("ANALYZE users, user_settings, conversations, conversation_participants, messages, scan_watermarks")
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// The generator makes whole seconds, so this is exact.
    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded()) }
}

fileprivate extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
