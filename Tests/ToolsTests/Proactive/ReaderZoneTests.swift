import Core
import Foundation
import Postgres
import Tools
import Testing
import TestSupport

/// The set-based reader and the rules over real rows, for users whose day is not UTC's day: the read windows
/// are a day wider than any zone's, the rules cut them to each user's own days.
@Suite struct ReaderZoneTests {
    /// 11:00 UTC on Monday Nov 23 is already 01:00 on Tuesday Nov 24 in Kiritimati (UTC+14), and still 00:00 on
    /// Monday Nov 23 in Pago Pago (UTC-11).
    static let now = ISO8601DateFormatter().date(from: "2026-11-23T11:00:00Z")!

    static func user(_ db: TestDatabase, _ name: String, zone: String?) async throws -> UUID {
        let id: UUID = try await db.pool.query(
            """
            WITH account AS (INSERT INTO auth.users (id) VALUES (gen_random_uuid()) RETURNING id)
            INSERT INTO users (id, email, username) SELECT id, $1 || '@example.test', $1 FROM account RETURNING id
            """, [name])[0].decode("id")
        if let zone { try await db.pool.query("INSERT INTO user_settings (user_id, time_zone) VALUES ($1, $2)", [id, zone]) }
        return id
    }

    static func event(_ db: TestDatabase, _ conversation: UUID, _ title: String, _ date: String, _ time: String?, _ end: String?) async throws {
        try await db.pool.query(
            """
            INSERT INTO calendar_events (idempotency_key, conversation_id, title, date, time, end_time, category, confidence,
                                         prompt_id, prompt_version, model)
            VALUES ($1, $2, $3, $4::date, $5::time, $6::time, 'activity', 0.9, 'test', 1, 'test')
            """, [UUID().uuidString, conversation, title, date, time, end])
    }

    @Test func eachUserIsReadOnTheirOwnCalendarDay() async throws {
        try await TestDatabase.with { db in
            let east = try await Self.user(db, "east", zone: "Pacific/Kiritimati")
            let west = try await Self.user(db, "west", zone: "Pacific/Pago_Pago")
            let utc = try await Self.user(db, "utc", zone: nil)
            let chat: UUID = try await db.pool.query("INSERT INTO conversations (name, is_group) VALUES ('Team', true) RETURNING id")[0].decode("id")
            for user in [east, west, utc] {
                try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [chat, user])
            }
            // Both events are on Tuesday Nov 24 at 09:00-10:00 and 09:30-10:30: a conflict for everybody, since it lies
            // ahead in every zone.
            try await Self.event(db, chat, "Swim", "2026-11-24", "09:00", "10:00")
            try await Self.event(db, chat, "Chess", "2026-11-24", "09:30", "10:30")
            // An all-day event on Monday Nov 23: already over in Kiritimati, today elsewhere.
            try await Self.event(db, chat, "Sports day", "2026-11-23", nil, nil)
            try await Self.event(db, chat, "Practice", "2026-11-23", "18:00", "19:00")

            let found = try await db.pool.withConnection { try await ProactiveEngine().findings(for: [east, west, utc, UUID()], now: Self.now, on: $0) }
            #expect(Set(found.keys) == [east, west, utc], "users that do not exist are absent")
            func types(_ user: UUID) -> [String] { (found[user] ?? []).compactMap { $0.details["type"]?.stringValue }.sorted() }
            #expect(types(east) == ["overlap"])
            #expect(types(west) == ["all_day", "overlap"])
            #expect(types(utc) == ["all_day", "overlap"])
            // The same instants are written on each user's own clock.
            let eastText = try #require(found[east]?.first { $0.details["type"] == "overlap" }?.suggestion)
            #expect(eastText.hasPrefix("Tuesday Nov 24: Swim (09:00-10:00)"), "\(eastText)")
        }
    }
}
