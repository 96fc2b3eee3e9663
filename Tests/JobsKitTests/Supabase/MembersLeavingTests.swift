import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport

/// A member who leaves a conversation (issue 46, docs/over-nights.md phase 2 point 4): from that moment row level
/// security no longer lets her read its RSVP rows, deadlines, reminders and findings (migration 165, as the app's
/// `authenticated` role reads them), and the next scan of it closes them for her (`LeftMembers`).
@Suite("Members leaving: RLS reads membership, the scan closes her rows")
struct MembersLeavingTests {
    typealias World = RowLevelSecurityTests.World

    /// Alice's reminder of her deadline and her finding citing it, beside the world's rows.
    static func aliceLeavesWithAReminderAndAFinding(_ db: TestDatabase) async throws -> World {
        let w = try await World.make(db)
        try await db.pool.query(
            """
            INSERT INTO reminders (user_id, title, reminder_time, created_by, origin, deadline_id, conversation_id, idempotency_key)
            VALUES ($1, 'Reminder: Permission slip', '2026-03-05T18:00:00Z', 'ai', 'extractor', $2, $3, 'rem:alice')
            """, [w.alice, w.aliceDeadline, w.family])
        for (user, deadline) in [(w.alice, w.aliceDeadline), (w.bob, w.bobDeadline)] {
            try await db.pool.query(
                """
                INSERT INTO assistant_findings (user_id, kind, subject_key, fingerprint, severity, title, suggestion, cites)
                VALUES ($1, 'deadline', 'deadline:slip', 'f2', 'high', 'Permission slip', 'Hand it in',
                        jsonb_build_array(jsonb_build_object('table', 'deadlines', 'id', $2::uuid::text)))
                """, [user, deadline])
        }
        try await db.pool.query("DELETE FROM conversation_participants WHERE conversation_id = $1 AND user_id = $2", [w.family, w.alice])
        return w
    }

    @Test(arguments: RowLevelSecurityTests.cases)
    func sheNoLongerReadsAnythingOfItAndHerCoParentStillDoes(grants: TestDatabase.DefaultGrants, origin: AITablesOrigin) async throws {
        try await SupabaseShape.with(grants, aiTables: origin) { db in
            let w = try await Self.aliceLeavesWithAReminderAndAFinding(db)
            for table in ["rsvp_tracking", "deadlines"] {
                #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM \(table)") == 0, "\(table)")
                #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM \(table)") == 1, "\(table)")
            }
            // Her reminder of the deadline is hidden; the one naming no conversation (her own kind) stays readable.
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM reminders") == 1)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM reminders WHERE deadline_id IS NOT NULL") == 0)
            #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM reminders") == 1)
            // Her finding citing the conversation's row is hidden; the one citing nothing stays.
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM assistant_findings") == 1)
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM assistant_findings WHERE kind = 'deadline'") == 0)
            #expect(try await SupabaseShape.count(w.bob, db, "SELECT count(*) FROM assistant_findings") == 2)
            // The conversation-wide tables were already members only (the app's policies).
            #expect(try await SupabaseShape.count(w.alice, db, "SELECT count(*) FROM calendar_events") == 0)
            // Nothing was removed: the owner still has every row.
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM deadlines") == 2)
        }
    }

    @Test func theSweepClosesHerRowsOnlyOnceAndLeavesWhatSheDidInTheApp() async throws {
        try await SupabaseShape.with(.grantAll) { db in
            let w = try await Self.aliceLeavesWithAReminderAndAFinding(db)
            try await db.pool.query("UPDATE deadlines SET status = 'completed' WHERE id = $1", [w.aliceDeadline])
            let now = Date(timeIntervalSince1970: 1_772_000_000)
            let closed = try await db.pool.withConnection { try await LeftMembers().close(in: w.family, now: now, on: $0) }
            #expect(closed == LeftMembers.Closed(users: 1, deadlines: 1, rsvps: 1, reminders: 1, findings: 1))
            let deadline = try await db.pool.query("SELECT status, closed_at, closed_reason FROM deadlines WHERE id = $1", [w.aliceDeadline])[0]
            #expect(try deadline.decode("closed_reason", as: String?.self) == "left")
            #expect(try deadline.decode("closed_at", as: Date?.self) == now)
            #expect(try deadline.decode("status", as: String?.self) == "completed", "what she did in the app stays")
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM rsvp_tracking WHERE user_id = $1 AND closed_reason = 'left'", [w.alice]) == 1)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM reminders WHERE idempotency_key = 'rem:alice' AND status = 'cancelled'") == 1)
            #expect(try await SupabaseShape.ownerCount(
                db, "SELECT count(*) FROM assistant_findings WHERE user_id = $1 AND kind = 'deadline' AND status = 'resolved'", [w.alice]) == 1)
            // Bob stays: nothing of his changes; the reminder of Alice's naming no conversation is not hers of it.
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM deadlines WHERE closed_at IS NOT NULL") == 1)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM rsvp_tracking WHERE closed_at IS NOT NULL") == 1)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM reminders WHERE status = 'cancelled'") == 1)
            #expect(try await SupabaseShape.ownerCount(db, "SELECT count(*) FROM assistant_findings WHERE status = 'open'") == 3)
            // Again: nothing left to close.
            let again = try await db.pool.withConnection { try await LeftMembers().close(in: w.family, now: now, on: $0) }
            #expect(again == LeftMembers.Closed())
        }
    }

    /// A scanned workload, then one of two parents with deadlines in a conversation leaves it.
    static func scannedThenOneLeaves(_ db: TestDatabase, _ engine: ExtractionEngine) async throws -> (conversation: UUID, leaver: UUID) {
        try await ScanHarness.load(try ScanHarness.workload(conversations: 4, active: 2), into: db)
        _ = try await ScanHarness.scan(db, engine)
        let row = try await db.pool.query(
            """
            SELECT d.conversation_id, d.user_id FROM deadlines d
            WHERE (SELECT count(DISTINCT user_id) FROM deadlines x WHERE x.conversation_id = d.conversation_id) >= 2
            ORDER BY d.conversation_id, d.user_id LIMIT 1
            """)[0]
        let (conversation, leaver): (UUID, UUID) = (try row.decode("conversation_id"), try row.decode("user_id"))
        try await db.pool.query("DELETE FROM conversation_participants WHERE conversation_id = $1 AND user_id = $2", [conversation, leaver])
        return (conversation, leaver)
    }

    @Test("the next scan closes the rows of a member who left, and only hers, with or without a new message")
    func theScanClosesHerRows() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            let (conversation, leaver) = try await Self.scannedThenOneLeaves(db, engine)
            // Nothing new was said: her leaving alone makes the conversation due, and no model is asked.
            let asked = server.requests.count
            #expect(try await ScanHarness.scan(db, engine).conversations == 1)
            #expect(server.requests.count == asked)
            #expect(try await ScanHarness.scan(db, engine).conversations == 0, "closed once")
            let hers = try await db.pool.query(
                "SELECT count(*) FILTER (WHERE closed_reason = 'left') AS left_, count(*) AS n FROM deadlines WHERE conversation_id = $1 AND user_id = $2",
                [conversation, leaver])[0]
            #expect(try hers.decode("n", as: Int.self) > 0)
            #expect(try hers.decode("left_", as: Int.self) == hers.decode("n", as: Int.self), "every deadline of hers there is closed")
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1 AND user_id <> $2 AND closed_at IS NOT NULL",
                [conversation, leaver])[0].decode("n", as: Int.self) == 0, "the others' stay open")
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE conversation_id = $1 AND user_id = $2 AND status = 'pending'",
                [conversation, leaver])[0].decode("n", as: Int.self) == 0, "her reminders of them are cancelled")
        }
    }

    @Test("an extract of the conversation closes them too: every write path leaves her nothing")
    func anExtractClosesHerRows() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            let (conversation, leaver) = try await Self.scannedThenOneLeaves(db, engine)

            _ = try await ExtractService(pool: db.pool, engine: engine).run(
                conversationID: conversation, features: [.calendarEvents, .decisions, .priorityMessages, .rsvps, .deadlines], dryRun: false,
                now: ScanHarness.now)
            let open = try await db.pool.query(
                "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1 AND user_id = $2 AND closed_at IS NULL", [conversation, leaver])
            #expect(try open[0].decode("n", as: Int.self) == 0, "none of her deadlines there is open after the extract")
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1 AND user_id = $2 AND closed_reason = 'left'",
                [conversation, leaver])[0].decode("n", as: Int.self) > 0, "closed because she left")
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1 AND user_id <> $2 AND closed_at IS NULL",
                [conversation, leaver])[0].decode("n", as: Int.self) > 0, "the others' stay open")
        }
    }
}
