import Foundation
import Postgres
import Testing
import TestSupport

/// Row level security and grants as the app's users reach the database (PostgREST's roles), under both of
/// Supabase's default privileges, on AI tables the app created (the service adopts them) and on ones the service created.
@Suite struct RowLevelSecurityTests {
    /// Alice and Bob share the family conversation; Carol is only in her own.
    struct World {
        let alice: UUID, bob: UUID, carol: UUID
        let family: UUID, other: UUID
        let message: UUID, carolMessage: UUID
        let aliceDeadline: UUID, bobDeadline: UUID

        static func make(_ db: TestDatabase) async throws -> World {
            let alice = try await SupabaseShape.user(db, "alice")
            let bob = try await SupabaseShape.user(db, "bob")
            let carol = try await SupabaseShape.user(db, "carol")
            let family = UUID(), other = UUID()
            for (conversation, members) in [(family, [alice, bob]), (other, [carol])] {
                try await db.pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, 'c', true)", [conversation])
                for member in members {
                    try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [conversation, member])
                }
            }
            let message = UUID(), carolMessage = UUID()
            try await db.pool.query("INSERT INTO messages (id, conversation_id, sender_id, content) VALUES ($1, $2, $3, 'Picture day Friday')", [message, family, bob])
            try await db.pool.query("INSERT INTO messages (id, conversation_id, sender_id, content) VALUES ($1, $2, $3, 'Dentist Monday')", [carolMessage, other, carol])
            for (conversation, source) in [(family, message), (other, carolMessage)] {
                try await db.pool.query(
                    """
                    INSERT INTO calendar_events (conversation_id, message_id, title, date, category, confidence, idempotency_key)
                    VALUES ($1, $2::uuid, 'Event', '2026-03-06', 'school', 0.9, 'k:' || $2::uuid::text)
                    """, [conversation, source])
                try await db.pool.query(
                    "INSERT INTO decisions (conversation_id, message_id, decision_text, category) VALUES ($1, $2, 'Pizza', 'food')",
                    [conversation, source])
                try await db.pool.query(
                    "INSERT INTO priority_messages (message_id, priority, reason, conversation_id) VALUES ($1, 'high', 'r', $2)",
                    [source, conversation])
            }
            var deadlines: [UUID] = []
            for user in [alice, bob] {
                try await db.pool.query(
                    """
                    INSERT INTO rsvp_tracking (message_id, conversation_id, user_id, event_name, event_date, status)
                    VALUES ($1, $2, $3, 'Party', '2026-03-07', 'pending')
                    """, [message, family, user])
                deadlines.append(try await db.pool.query(
                    """
                    INSERT INTO deadlines (message_id, conversation_id, user_id, task, deadline, category, priority, status)
                    VALUES ($1, $2, $3, 'Permission slip', '2026-03-06', 'school', 'high', 'pending') RETURNING id
                    """, [message, family, user])[0].decode("id"))
                try await db.pool.query(
                    "INSERT INTO reminders (user_id, title, reminder_time, created_by) VALUES ($1, 'Reminder: slip', '2026-03-05T18:00:00Z', 'ai')", [user])
            }
            try await db.pool.query("INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'America/New_York')", [bob])
            let run: UUID = try await db.pool.query("INSERT INTO job_runs (kind) VALUES ('scan') RETURNING id")[0].decode("id")
            try await db.pool.query(
                "INSERT INTO assistant_runs (run_id, user_id, summary, stop_reason, prompt_id, prompt_version, model) VALUES ($1, $2, 's', 'done', 'p', 1, 'm')",
                [run, alice])
            for user in [alice, bob] {
                try await db.pool.query(
                    """
                    INSERT INTO assistant_findings (user_id, kind, subject_key, fingerprint, severity, title, suggestion)
                    VALUES ($1, 'rsvp', 'rsvp:party', 'f1', 'medium', 'Party RSVP', 'Reply to the party invitation')
                    """, [user])
            }
            try await db.pool.query("INSERT INTO proactive_users (user_id) VALUES ($1)", [alice])
            try await db.pool.query("INSERT INTO job_requests (kind, user_id) VALUES ('assist', $1)", [bob])
            return World(alice: alice, bob: bob, carol: carol, family: family, other: other, message: message, carolMessage: carolMessage,
                         aliceDeadline: deadlines[0], bobDeadline: deadlines[1])
        }
    }

    static let cases: [(TestDatabase.DefaultGrants, AITablesOrigin)] = TestDatabase.DefaultGrants.allCases.flatMap { grants in
        AITablesOrigin.allCases.map { (grants, $0) }
    }

    @Test(arguments: cases)
    func membersSeeTheirConversationsAndUsersTheirOwnRows(grants: TestDatabase.DefaultGrants, origin: AITablesOrigin) async throws {
        try await SupabaseShape.with(grants, aiTables: origin) { db in
            let w = try await World.make(db)
            for table in ["calendar_events", "decisions", "priority_messages"] {
                // Owner sees both conversations' rows; Alice (member) only the family's, Carol only hers.
                #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM \(table)") == 2, "\(table)")
                #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM \(table)") == 1, "\(table)")
                #expect(try await SupabaseShape.count(w.carol, db, "SELECT count(*) FROM \(table) WHERE message_id = $1", [w.message]) == 0, "\(table)")
            }
            for table in ["rsvp_tracking", "deadlines", "reminders"] {
                #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM \(table)") == 1, "\(table)")
                #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM \(table) WHERE user_id = $1", [w.bob]) == 0, "\(table)")
                #expect(try await SupabaseShape.count(w.carol, db, "SELECT count(*) FROM \(table)") == 0, "\(table)")
            }
            // Per-user service tables: her own row only.
            #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM user_settings") == 1)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM user_settings") == 0)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM assistant_runs") == 1)
            #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM assistant_runs") == 0)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM assistant_findings WHERE user_id = $1", [w.alice]) == 1)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM assistant_findings") == 1)
            #expect(try await SupabaseShape.count(w.carol, db, "SELECT count(*) FROM assistant_findings") == 0)
            #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM job_requests") == 1)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM job_requests") == 0)
            // The PRD's conversation policies work with the membership fix (no infinite recursion).
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM conversation_participants") == 2)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM messages") == 1)
        }
    }

    @Test(arguments: cases)
    func anonGetsNothingAndWritesNothing(grants: TestDatabase.DefaultGrants, origin: AITablesOrigin) async throws {
        try await SupabaseShape.with(grants, aiTables: origin) { db in
            let w = try await World.make(db)
            // Tables the service owns are closed to anon, whatever the default privileges said.
            for table in ["user_settings", "job_requests", "assistant_findings", "assistant_runs", "proactive_users", "job_runs",
                          "scan_watermarks", "agent_traces",
                          "llm_batches", "llm_batch_conversations", "llm_batch_items", "messageai_migrations"] {
                #expect(await SupabaseShape.failure(nil, db, "SELECT count(*) FROM \(table)") == .insufficientPrivilege, "\(table)")
            }
            // AI tables: no grant where the service created them; the PRD's grants but its policies (no rows) where the app did.
            for table in SupabaseShape.aiTables {
                if origin == .service {
                    #expect(await SupabaseShape.failure(nil, db, "SELECT count(*) FROM \(table)") == .insufficientPrivilege, "\(table)")
                } else {
                    #expect(try await SupabaseShape.count(nil, db, "SELECT count(*) FROM \(table)") == 0, "\(table)")
                }
            }
            #expect(await SupabaseShape.failure(nil, db, "INSERT INTO job_requests (kind, user_id) VALUES ('assist', $1)", [w.alice]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(nil, db, "INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'UTC')", [w.alice]) == .insufficientPrivilege)
            let completed = try? await SupabaseShape.affected(nil, db, "UPDATE deadlines SET status = 'completed' WHERE id = $1", [w.bobDeadline])
            #expect(completed == nil || completed == 0)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM deadlines WHERE status = 'completed'") == 0)
        }
    }

    @Test(arguments: TestDatabase.DefaultGrants.allCases)
    func signedInWritesReachOnlyTheirOwnRowsAndColumns(grants: TestDatabase.DefaultGrants) async throws {
        try await SupabaseShape.with(grants) { db in
            let w = try await World.make(db)
            // job_requests: for herself and her conversations only, and only the columns a request is made of.
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO job_requests (kind, user_id) VALUES ('assist', $1)", [w.alice]) == nil)
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1)", [w.family]) == nil)
            // Her work again, already pending: skipped, not queued twice (migration 130).
            #expect(try await SupabaseShape.affected(w.alice, db, "INSERT INTO job_requests (kind, user_id) VALUES ('assist', $1)", [w.alice]) == 0)
            #expect(try await SupabaseShape.ownerCount(
                db, "SELECT count(*) FROM job_requests WHERE kind = 'assist' AND user_id = $1", [w.alice]) == 1)
            // Work of others that waits in a pending request (bob's assist run, an extract of a conversation she is not
            // in) is refused as any other, not skipped: the skip must not tell her such a request exists.
            try await db.pool.query("INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1)", [w.other])
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO job_requests (kind, user_id) VALUES ('assist', $1)", [w.bob]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1)", [w.other]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(
                w.alice, db, "INSERT INTO job_requests (kind, user_id, status) VALUES ('assist', $1, 'done')", [w.alice]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "UPDATE job_requests SET status = 'pending'") == .insufficientPrivilege)
            // user_settings: her own row, her time zone.
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'Europe/Paris')", [w.alice]) == nil)
            #expect(await SupabaseShape.failure(w.alice, db, "INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'Europe/Paris')", [w.carol]) == .insufficientPrivilege)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE user_settings SET time_zone = 'Asia/Tokyo' WHERE user_id = $1", [w.bob]) == 0)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE user_settings SET time_zone = 'Asia/Tokyo' WHERE user_id = $1", [w.alice]) == 1)
            // The app's upsert, as PostgREST sends it (every given column in the update).
            let upsert = """
                INSERT INTO user_settings (user_id, time_zone) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id, time_zone = EXCLUDED.time_zone
                """
            #expect(await SupabaseShape.failure(w.alice, db, upsert, [w.alice, "America/Chicago"]) == nil)
            #expect(await SupabaseShape.failure(w.alice, db, upsert, [w.bob, "America/Chicago"]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "UPDATE user_settings SET user_id = $1", [w.carol]) == .insufficientPrivilege)
            #expect(try await db.pool.query("SELECT time_zone FROM user_settings WHERE user_id = $1", [w.bob])[0].decode("time_zone", as: String.self)
                    == "America/New_York")
            // Service-internal tables stay shut to signed-in users too.
            #expect(await SupabaseShape.failure(w.alice, db, "SELECT count(*) FROM job_runs") == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "SELECT count(*) FROM messageai_migrations") == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "DELETE FROM scan_watermarks") == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "SELECT count(*) FROM proactive_users") == .insufficientPrivilege)
            // assistant_findings: she dismisses her own finding, nobody else's, and changes nothing else.
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE assistant_findings SET dismissed = true WHERE user_id = $1", [w.alice]) == 1)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE assistant_findings SET dismissed = true WHERE user_id = $1", [w.bob]) == 0)
            #expect(await SupabaseShape.failure(w.alice, db, "UPDATE assistant_findings SET title = 'x' WHERE user_id = $1", [w.alice]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(w.alice, db, "DELETE FROM assistant_findings WHERE user_id = $1", [w.alice]) == .insufficientPrivilege)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM assistant_findings WHERE dismissed") == 1)
        }
    }

    /// Tables the service creates: the iOS screens' updates work for the row's owner (or a member) and change
    /// only the columns users own.
    @Test(arguments: TestDatabase.DefaultGrants.allCases)
    func iOSUpdatesOnTablesTheServiceCreated(grants: TestDatabase.DefaultGrants) async throws {
        try await SupabaseShape.with(grants, aiTables: .service) { db in
            let w = try await World.make(db)
            let event: UUID = try await db.pool.query("SELECT id FROM calendar_events WHERE message_id = $1", [w.message])[0].decode("id")
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE calendar_events SET confirmed = true WHERE id = $1", [event]) == 1)
            #expect(try await SupabaseShape.affected(w.carol, db, "UPDATE calendar_events SET confirmed = false WHERE id = $1", [event]) == 0)
            #expect(await SupabaseShape.failure(w.alice, db, "UPDATE calendar_events SET title = 'x' WHERE id = $1", [event]) == .insufficientPrivilege)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE priority_messages SET dismissed = true WHERE message_id = $1", [w.message]) == 1)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE priority_messages SET dismissed = true WHERE message_id = $1", [w.carolMessage]) == 0)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE deadlines SET status = 'completed' WHERE id = $1", [w.aliceDeadline]) == 1)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE deadlines SET status = 'completed' WHERE id = $1", [w.bobDeadline]) == 0)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE reminders SET status = 'dismissed' WHERE user_id = $1", [w.alice]) == 1)
            #expect(try await SupabaseShape.affected(w.alice, db, "UPDATE reminders SET status = 'dismissed' WHERE user_id = $1", [w.bob]) == 0)
            #expect(await SupabaseShape.failure(w.alice, db, "DELETE FROM deadlines WHERE id = $1", [w.aliceDeadline]) == .insufficientPrivilege)
            #expect(await SupabaseShape.failure(
                w.alice, db, "INSERT INTO reminders (user_id, title, reminder_time) VALUES ($1, 'Call Bob', '2026-03-05T09:00:00Z')", [w.alice]) == nil)
            #expect(await SupabaseShape.failure(
                w.alice, db, "INSERT INTO reminders (user_id, title, reminder_time) VALUES ($1, 'x', '2026-03-05T09:00:00Z')", [w.bob]) == .insufficientPrivilege)
            let row = try await db.pool.query(
                "SELECT (SELECT confirmed FROM calendar_events WHERE id = $1) AS c, (SELECT status FROM deadlines WHERE id = $2) AS s", [event, w.bobDeadline])[0]
            #expect(try row.decode("c", as: Bool.self))
            #expect(try row.decode("s", as: String.self) == "pending")
        }
    }
}
