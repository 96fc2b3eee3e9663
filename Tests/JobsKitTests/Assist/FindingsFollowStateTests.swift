import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport

/// Findings follow the state (issue 46, docs/over-nights.md phase 2 point 5): the proactive pass reads only open rows,
/// so a finding whose cause closed (an event moved or cancelled, an invitation whose event is cancelled, a slip met, a
/// member who left) resolves in the same pass, and an item's rows never conflict with each other.
@Suite("Proactive: findings follow the state")
struct FindingsFollowStateTests {
    typealias Pass = ProactivePassTests

    @Test func aCancelledEventsConflictAndAClosedInvitationResolveInTheSamePass() async throws {
        try await TestDatabase.with { db in
            _ = try await Pass.scanned(db)
            #expect(try await Pass.finding(db, "conflict")?.status == "open")
            #expect(try await Pass.finding(db, "rsvp")?.status == "open")
            // The party is cancelled: its row the parent confirmed stays, closed; its RSVP rows close with it.
            try await db.pool.query(
                """
                UPDATE calendar_events SET confirmed = true, closed_at = now(), closed_reason = 'cancelled', updated_at = now()
                WHERE title ILIKE '%birthday party%'
                """)
            try await db.pool.query("UPDATE rsvp_tracking SET closed_at = now(), closed_reason = 'cancelled', updated_at = now()")
            let pass = try await ProactivePass(pool: db.pool).run(.users([Pass.maria]), now: Pass.now)
            #expect(pass.written.resolved >= 2)
            #expect(try await Pass.finding(db, "conflict")?.status == "resolved")
            #expect(try await Pass.finding(db, "rsvp")?.status == "resolved")
        }
    }

    @Test func aMovedEventsOldRowKeptByTheAppIsNoConflictWithItsNewOne() async throws {
        try await TestDatabase.with { db in
            _ = try await Pass.scanned(db)
            // The game moved to the party's time: one item (ref e1) whose old row the app keeps beside the new one.
            let game = try await db.pool.query("SELECT id, conversation_id FROM calendar_events WHERE title = 'Game'")[0]
            let id: UUID = try game.decode("id")
            try await db.pool.query("UPDATE calendar_events SET idempotency_key = 'event:' || conversation_id || ':e1' WHERE id = $1", [id])
            try await db.pool.query(
                """
                INSERT INTO calendar_events (conversation_id, title, date, time, end_time, location, category, confidence, idempotency_key)
                SELECT conversation_id, title, date, time + interval '30 minutes', end_time + interval '30 minutes', location, category,
                       confidence, 'app:event:' || conversation_id || ':e1' FROM calendar_events WHERE id = $1
                """, [id])
            _ = try await ProactivePass(pool: db.pool).run(.users([Pass.maria]), now: Pass.now)
            let conflicts = try await db.pool.query(
                "SELECT cites FROM assistant_findings WHERE user_id = $1 AND kind = 'conflict' AND status = 'open'", [Pass.maria])
            #expect(conflicts.count == 2, "each game row with the party, never the game with itself")
            for row in conflicts {
                let cites = try row.decode("cites", as: JSONValue.self).arrayValue ?? []
                let titles = try await db.pool.query(
                    "SELECT title FROM calendar_events WHERE id = ANY($1::uuid[]) ORDER BY title",
                    [cites.compactMap { $0["id"]?.stringValue.flatMap(UUID.init(uuidString:)) }]).map { try $0.decode("title", as: String.self) }
                #expect(titles.count == 2 && titles.contains("Game") && !titles.allSatisfy { $0 == "Game" }, "\(titles)")
            }
        }
    }

    @Test func aMetDeadlineAndAConversationSheLeftRaiseNothing() async throws {
        try await TestDatabase.with { db in
            _ = try await Pass.scanned(db)
            let conversation: UUID = try await db.pool.query(
                "SELECT conversation_id FROM rsvp_tracking WHERE user_id = $1 LIMIT 1", [Pass.maria])[0].decode("conversation_id")
            let deadline: UUID = try await db.pool.query(
                """
                INSERT INTO deadlines (conversation_id, user_id, task, deadline, category, priority, status, idempotency_key)
                VALUES ($1, $2, 'Permission slip', ($3::date + 1), 'school', 'high', 'pending', 'deadline:test:t1') RETURNING id
                """, [conversation, Pass.maria, FixedTime.tuesdayNoon]).first!.decode("id")
            // The finding citing that deadline (the demo may have others).
            let slip = {
                try await db.pool.query(
                    "SELECT status FROM assistant_findings WHERE user_id = $1 AND kind = 'deadline' AND cites @> jsonb_build_array(jsonb_build_object('id', $2::uuid::text))",
                    [Pass.maria, deadline]).first?.decode("status", as: String.self)
            }
            _ = try await ProactivePass(pool: db.pool).run(.users([Pass.maria]), now: Pass.now)
            #expect(try await slip() == "open")
            // Met for her (her co-parent said so): closed with its reason, the app's status kept.
            try await db.pool.query("UPDATE deadlines SET closed_at = now(), closed_reason = 'met', updated_at = now() WHERE id = $1", [deadline])
            _ = try await ProactivePass(pool: db.pool).run(.users([Pass.maria]), now: Pass.now)
            #expect(try await slip() == "resolved")

            // She leaves the conversation: its RSVP is no longer hers to answer, before any scan.
            #expect(try await Pass.finding(db, "rsvp")?.status == "open")
            try await db.pool.query("DELETE FROM conversation_participants WHERE conversation_id = $1 AND user_id = $2", [conversation, Pass.maria])
            _ = try await ProactivePass(pool: db.pool).run(.users([Pass.maria]), now: Pass.now)
            #expect(try await Pass.finding(db, "rsvp")?.status == "resolved")
        }
    }
}
