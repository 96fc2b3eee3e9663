import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import Tools
import JobsCLI

/// One definition of a valid time zone: the trigger on `user_settings` and the jobs accept the same names, and a zone
/// stored before the check (or around it) costs its user her own zone, never her conversations.
@Suite struct ZoneDefinitionTests {
    static let refused = ["posix/America/New_York", "right/Europe/Paris", "localtime", "posixrules", "Factory", "Mars/Base",
                          "../etc/passwd", "/usr/share/zoneinfo/UTC", ""]

    @Test(arguments: TestDatabase.DefaultGrants.allCases)
    func aSignedInUserCanSetOnlyZonesTheJobsLoad(grants: TestDatabase.DefaultGrants) async throws {
        try await SupabaseShape.with(grants) { db in
            let alice = try await SupabaseShape.user(db, "alice")
            #expect(await SupabaseShape.failure(
                alice, db, "INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'Europe/Paris')", [alice]) == nil)
            for name in Self.refused {
                #expect(await SupabaseShape.failure(
                    alice, db, "UPDATE user_settings SET time_zone = $2 WHERE user_id = $1", [alice, name]) == .checkViolation, "\(name)")
                #expect(throws: UnknownTimeZone.self, "\(name)") { try UserTimeZonePolicy.zone(named: name, source: "test") }
            }
            let stored: String = try await db.pool.query("SELECT time_zone FROM user_settings WHERE user_id = $1", [alice])[0].decode("time_zone")
            #expect(stored == "Europe/Paris")
        }
    }

    @Test func theTriggerAndTheJobsAgreeOnEveryZoneTheDatabaseKnows() async throws {
        // Read the database's verdicts first, so the database is not held while Foundation loads some 600 zones.
        let verdicts: [(name: String, ok: Bool)] = try await TestDatabase.with(maxConnections: 1) { db in
            try await db.pool.query("SELECT name, messageai_valid_time_zone(name) AS ok FROM pg_timezone_names ORDER BY name").map {
                (try $0.decode("name"), try $0.decode("ok"))
            }
        }
        var disagreements: [String] = []
        for (name, database) in verdicts {
            let jobs = (try? UserTimeZonePolicy.zone(named: name, source: "test")) != nil
            if database != jobs { disagreements.append("\(name): database \(database), jobs \(jobs)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
        #expect(verdicts.filter(\.ok).count > 300, "the zones of places are accepted")
    }

    @Test("zones stored before the check fall back to the default zone with a warning, and the conversation is scanned")
    func storedInvalidZonesFallBack() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: TimeZonePolicyTests.now))
            let members: [UUID] = try await db.pool.query(
                "SELECT user_id FROM conversation_participants WHERE conversation_id = $1 ORDER BY user_id",
                [DemoDataset.conversationIDs.classGroup]).map { try $0.decode("user_id") }
            try #require(members.count >= 2)
            // Written around the trigger, as a database migrated before it could have them.
            try await db.pool.query("ALTER TABLE user_settings DISABLE TRIGGER user_settings_check_time_zone")
            try await db.pool.query(
                """
                INSERT INTO user_settings (user_id, time_zone) VALUES ($1, 'posix/America/New_York'), ($2, 'localtime')
                ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone
                """, [members[0], members[1]])
            try await db.pool.query("ALTER TABLE user_settings ENABLE TRIGGER user_settings_check_time_zone")

            let summary = try await SupabaseShape.rulesScan(db, now: TimeZonePolicyTests.now)
            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.conversations == 4)
            let policy = UserTimeZonePolicy(fallback: TimeZone(identifier: "Asia/Tokyo")!)
            #expect(policy.zone(user: members[1].uuidString.lowercased(), setting: "localtime") == (TimeZone(identifier: "Asia/Tokyo")!, false))
            let zone = try await ToolContext.userTimeZone(members[0], pool: db.pool, zones: policy)
            #expect(zone.identifier == "Asia/Tokyo", "the assistant's tools fall back too")
        }
    }
}
