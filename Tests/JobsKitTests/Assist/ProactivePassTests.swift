import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport
import JobsCLI

/// The proactive pass on the demo data after a rule-based scan: the planted conflict and the unanswered RSVP
/// are found by code, stored once, resolved when their cause goes away, and never raised again once dismissed
/// unless their subject changes.
@Suite struct ProactivePassTests {
    static let now = AssistDemoScene.now
    static let maria = AssistDemoScene.maria

    /// Loads the demo and scans it with the pass after extraction.
    static func scanned(_ db: TestDatabase) async throws -> ScanService.Summary {
        _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
        return try await scan(db)
    }

    static func scan(_ db: TestDatabase) async throws -> ScanService.Summary {
        let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
        var service = ScanService(pool: db.pool, engine: rules, options: ScanOptions())
        service.proactive = ProactivePass(pool: db.pool)
        return try await service.run(now: now)
    }

    struct Row: Equatable {
        let id: UUID, kind: String, subject: String, fingerprint: String, status: String, dismissed: Bool, updatedAt: Date
    }

    static func rows(_ db: TestDatabase) async throws -> [Row] {
        try await db.pool.query(
            "SELECT id, kind, subject_key, fingerprint, status, dismissed, updated_at FROM assistant_findings ORDER BY user_id, kind, subject_key"
        ).map { row in
            Row(id: try row.decode("id"), kind: try row.decode("kind"), subject: try row.decode("subject_key"),
                fingerprint: try row.decode("fingerprint"), status: try row.decode("status"), dismissed: try row.decode("dismissed"),
                updatedAt: try row.decode("updated_at"))
        }
    }

    static func finding(_ db: TestDatabase, _ kind: String, user: UUID = maria) async throws -> (status: String, dismissed: Bool, suggestion: String, cites: JSONValue)? {
        try await db.pool.query(
            "SELECT status, dismissed, suggestion, cites FROM assistant_findings WHERE user_id = $1 AND kind = $2", [user, kind]
        ).first.map { (try $0.decode("status"), try $0.decode("dismissed"), try $0.decode("suggestion"), try $0.decode("cites")) }
    }

    @Test func scanFindsThePlantedConflictAndRSVPAndASecondScanAddsNoFinding() async throws {
        try await TestDatabase.with { db in
            let first = try await Self.scanned(db)
            let pass = try #require(first.proactive)
            #expect(pass.usersFailed == 0 && pass.errors.isEmpty, "\(pass.errors)")
            #expect(pass.written.inserted >= 2)
            #expect(DemoDataset.make(now: Self.now).conflictDay.iso == "2026-03-07", "the demo's Saturday, loaded on Tuesday March 3")
            let conflict = try #require(try await Self.finding(db, "conflict"))
            #expect(conflict.status == "open")
            #expect(conflict.suggestion.hasPrefix("Saturday Mar 7: Game (10:00-12:00, Riverside Park) overlaps Emma's 8th birthday party (11:00-13:00, Jump Zone)"),
                    "\(conflict.suggestion)")
            #expect(conflict.cites.arrayValue?.count == 2)
            let rsvp = try #require(try await Self.finding(db, "rsvp"))
            #expect(rsvp.suggestion.contains("Emma's 8th birthday party") && rsvp.suggestion.contains("Reply by tomorrow (Wednesday Mar 4)"), "\(rsvp.suggestion)")
            // Each cited row exists and belongs to the finding's user (or the user's conversations).
            for cite in conflict.cites.arrayValue ?? [] {
                let id = try #require(cite["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
                #expect(try await db.pool.query(
                    """
                    SELECT 1 FROM calendar_events e JOIN conversation_participants cp ON cp.conversation_id = e.conversation_id
                    WHERE e.id = $1 AND cp.user_id = $2
                    """, [id, Self.maria]).count == 1)
            }
            // Dan declined the party: he is in both chats and gets no conflict.
            #expect(try await Self.finding(db, "conflict", user: DemoDataset.userIDs.dan) == nil)
            #expect(pass.shown.contains { $0.userID == Self.maria && $0.findings.contains { $0.kind == "conflict" } })

            let before = try await Self.rows(db)
            let second = try #require(try await Self.scan(db).proactive)
            #expect(second.written.inserted == 0 && second.written.resolved == 0)
            #expect(second.usersPassed > 0, "users with something coming up are looked at even with nothing new")
            let third = try await ProactivePass(pool: db.pool).run(.all, now: Self.now)
            #expect(third.written.inserted == 0 && third.written.resolved == 0)
            #expect(try await Self.rows(db) == before, "same rows, same fingerprints, updated_at untouched")
        }
    }

    @Test func movingOneEventResolvesTheConflictAndMovingItBackReopensTheSameRow() async throws {
        try await TestDatabase.with { db in
            _ = try await Self.scanned(db)
            let id: UUID = try await db.pool.query("SELECT id FROM assistant_findings WHERE user_id = $1 AND kind = 'conflict'", [Self.maria])[0].decode("id")
            try await db.pool.query(
                "UPDATE calendar_events SET time = '14:00', end_time = '16:00', updated_at = now() WHERE title ILIKE '%birthday party%'")
            let moved = try await ProactivePass(pool: db.pool).run(.changed, now: Self.now)
            #expect(moved.written.resolved == 1)
            #expect(try await Self.finding(db, "conflict")?.status == "resolved")
            #expect(try await Self.finding(db, "rsvp")?.status == "open", "the RSVP is still unanswered")

            try await db.pool.query(
                "UPDATE calendar_events SET time = '11:00', end_time = '13:00', updated_at = now() WHERE title ILIKE '%birthday party%'")
            _ = try await ProactivePass(pool: db.pool).run(.changed, now: Self.now)
            let rows = try await db.pool.query("SELECT id, status FROM assistant_findings WHERE user_id = $1 AND kind = 'conflict'", [Self.maria])
            #expect(rows.count == 1)
            #expect(try rows[0].decode("id", as: UUID.self) == id)
            #expect(try rows[0].decode("status", as: String.self) == "open")
        }
    }

    @Test func answeringTheRSVPResolvesItsFinding() async throws {
        try await TestDatabase.with { db in
            _ = try await Self.scanned(db)
            #expect(try await Self.finding(db, "rsvp")?.status == "open")
            try await db.pool.query(
                "UPDATE rsvp_tracking SET status = 'responded', response = 'yes', responded_at = now(), updated_at = now() WHERE user_id = $1",
                [Self.maria])
            let pass = try await ProactivePass(pool: db.pool).run(.changed, now: Self.now)
            #expect(pass.written.resolved == 1)
            #expect(try await Self.finding(db, "rsvp")?.status == "resolved")
            #expect(try await Self.finding(db, "conflict")?.status == "open")
        }
    }

    @Test func aDismissedFindingStaysDismissedUntilItsSubjectChanges() async throws {
        try await TestDatabase.with { db in
            _ = try await Self.scanned(db)
            try await db.pool.query("UPDATE assistant_findings SET dismissed = true WHERE user_id = $1 AND kind = 'conflict'", [Self.maria])
            let again = try await ProactivePass(pool: db.pool).run(.all, now: Self.now)
            #expect(try await Self.finding(db, "conflict")?.dismissed == true)
            #expect(!(again.shown.first { $0.userID == Self.maria }?.findings.contains { $0.kind == "conflict" } ?? true))
            // Still overlapping, but at another time: a new subject, raised again.
            try await db.pool.query(
                "UPDATE calendar_events SET time = '11:30', end_time = '13:30', updated_at = now() WHERE title ILIKE '%birthday party%'")
            _ = try await ProactivePass(pool: db.pool).run(.changed, now: Self.now)
            let raised = try #require(try await Self.finding(db, "conflict"))
            #expect(raised.dismissed == false && raised.status == "open")
            #expect(raised.suggestion.contains("(11:30-13:30, Jump Zone)"))
        }
    }

    @Test func shardsSplitTheUsersAndAPassWaitsForAUserAnotherPassIsComputing() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Self.now))
            _ = try await ProactivePassTests.scanWithoutPass(db)
            var counts: [Int] = []
            for index in 0..<2 {
                var options = ProactivePass.Options()
                (options.shardIndex, options.shardCount) = (index, 2)
                options.batchSize = 2
                counts.append(try await ProactivePass(pool: db.pool, options: options).run(.all, now: Self.now).usersPassed)
            }
            #expect(counts.reduce(0, +) == DemoDataset.make(now: Self.now).users.count)
            #expect(counts.allSatisfy { $0 > 0 })
            // Users another pass is computing (its transaction holds their rows) are waited for, then taken again only
            // when that pass began before this one: its findings may lack rows written since.
            let users = DemoDataset.make(now: Self.now).users.count
            for (otherBegan, expected) in [("now() + interval '1 hour'", 0), ("now() - interval '1 hour'", users)] {
                try await db.pool.query("UPDATE proactive_users SET last_pass_at = NULL")
                let locked = Switch(false)
                let other = Task {
                    try await db.pool.transaction { c in
                        try await c.query("SELECT user_id FROM proactive_users FOR UPDATE")
                        locked.isOn = true
                        try await Task.sleep(for: .milliseconds(300))
                        try await c.query("UPDATE proactive_users SET last_pass_at = \(otherBegan)")
                    }
                }
                try await waitUntil(10, "the other pass to hold the users") { locked.isOn }
                let passed = try await ProactivePass(pool: db.pool).run(.all, now: Self.now).usersPassed
                try await other.value
                #expect(passed == expected, "other pass began \(otherBegan)")
            }
        }
    }

    static func scanWithoutPass(_ db: TestDatabase) async throws -> ScanService.Summary {
        let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
        return try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: now)
    }
}
