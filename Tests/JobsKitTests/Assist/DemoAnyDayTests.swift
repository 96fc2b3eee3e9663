import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

/// The demo on any day: loaded and scanned by the rules at each day of the week, in the morning and late in the
/// evening in New York (a fixed clock), it stores no item in the past or a year ahead, no reminder in the past, no
/// question as a decision, no school event on a weekend or weekend activity on a school day, and the parent's
/// deadlines within the coming week.
@Suite struct DemoAnyDayTests {
    /// (days after Wednesday 2026-03-04, hours after noon New York): every weekday at 08:00 and at 19:54.
    static let moments: [(days: Int, hours: Double)] = (0..<7).flatMap { [($0, -4.0), ($0, 7.9)] }

    @Test(arguments: moments.indices)
    func itemsAreAheadAndNearWhateverTheDay(_ index: Int) async throws {
        let (days, hours) = Self.moments[index]
        let now = FixedTime.wednesdayNoon.addingTimeInterval(Double(days) * 86_400 + hours * 3600)
        let today = LocalDate(now, in: DemoDataset.timeZone)
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
            let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
            let scan = try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: now)
            #expect(scan.failed == 0)
            let dated = try await db.pool.query("""
                SELECT 'event ' || title AS what, date::text AS day FROM calendar_events
                UNION ALL SELECT 'deadline ' || task, deadline::text FROM deadlines
                UNION ALL SELECT 'rsvp ' || event_name, event_date::text FROM rsvp_tracking
                UNION ALL SELECT 'decision ' || decision_text, deadline::text FROM decisions WHERE deadline IS NOT NULL
                """).map { (try $0.decode("what", as: String.self), LocalDate(iso: try $0.decode("day", as: String.self))!) }
            #expect(dated.contains { $0.0.hasPrefix("event") } && dated.contains { $0.0.hasPrefix("deadline") })
            for (what, day) in dated {
                #expect(day >= today, "\(what) on \(day.iso) is before \(today.iso) (\(today.weekdayName))")
                #expect(today.days(until: day) <= 14, "\(what) on \(day.iso) is far ahead of \(today.iso) (\(today.weekdayName))")
            }
            // School events and appointments fall on school days, the game and the party on the weekend (issue 49).
            let events = try await db.pool.query("SELECT title, date::text AS day FROM calendar_events").map {
                (try $0.decode("title", as: String.self), LocalDate(iso: try $0.decode("day", as: String.self))!)
            }
            for (title, day) in events {
                let weekendActivity = ["game", "birthday", "party"].contains { title.lowercased().contains($0) }
                #expect((day.isoWeekday >= 6) == weekendActivity, "\(title) on \(day.weekdayName) \(day.iso), loaded \(today.weekdayName)")
            }
            #expect(events.contains { $0.0.lowercased().contains("dismissal") }, "\(events)")
            // The demo parent's deadlines (the library books, the slips) all fall in the coming week: the pass raises them.
            let maria = try await db.pool.query("SELECT task, deadline::text AS day FROM deadlines WHERE user_id = $1",
                                                [DemoDataset.userIDs.maria]).map {
                (try $0.decode("task", as: String.self), LocalDate(iso: try $0.decode("day", as: String.self))!)
            }
            #expect(maria.count >= 2, "\(maria)")
            for (task, day) in maria { #expect(today.days(until: day) <= 7, "\(task) on \(day.iso), loaded \(today.weekdayName)") }
            let late = try await db.pool.query(
                "SELECT title FROM reminders WHERE messageai_utc(reminder_time) <= $1::timestamptz", [now])
            #expect(late.isEmpty, "reminders in the past on \(today.weekdayName)")
            let decisions = try await db.pool.query("SELECT decision_text FROM decisions").map { try $0.decode("decision_text", as: String.self) }
            #expect(!decisions.contains { $0.hasSuffix("?") || $0.lowercased().hasPrefix("can you") }, "\(decisions)")
        }
    }
}
