import Core
import Extractors
import Foundation
import JobsKit
import TestSupport
import Testing

/// The date policy holds for every date, phrase or no phrase (issue 47 item 4): a model's 1900-01-01, 2200-01-01,
/// 9999-12-31, 0001-01-01, a day before the message or more than a year after it drops the item and is counted;
/// it never fails the conversation and never reaches a row. A date in the window beside them is kept.
@Suite("Reliability: implausible dates")
struct ImplausibleDateTests {
    /// Each conversation's date (by workload index); the last is the control, inside the window.
    static let dates = ["1900-01-01", "2200-01-01", "9999-12-31", "0001-01-01", "2026-02-20", "2027-06-01", "2026-03-10"]
    static let kept = "2026-03-10"

    @Test("no conversation fails by a date, no implausible date reaches a row, each dropped item is counted")
    func implausibleDatesAreDroppedNotFailed() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: Self.dates.count, active: Self.dates.count, newMessages: 2, seed: 247)
            try await ScanHarness.load(workload, into: db)
            let names = workload.conversations.map(\.name)
            let counter = Counter()
            // Every other request has an unreadable phrase ("some day"), so the model's date stands either way.
            let server = try FakeOpenAIServer { request in
                let index = names.firstIndex(of: ScanRequests.conversation(request) ?? "") ?? 0
                let phrase: JSONValue = counter.next("requests").isMultiple(of: 2) ? "some day" : nil
                return ScanRequests.itemsOnEveryFeature(request, citing: ScanRequests.messageLines(request).last, date: Self.dates[index], phrase: phrase)
            }
            defer { server.stop() }
            // The engine asks per feature, so each feature's items carry the conversation's date.
            let summary = try await Reliability.scan(db, try ScanHarness.engine(server)) { $0.preFilter = false }
            #expect(summary.failed == 0, "no conversation failed by a date: \(summary.failures)")
            let failures: Int = try await db.pool.query("SELECT coalesce(sum(failures), 0)::int AS n FROM scan_watermarks")[0].decode("n")
            #expect(failures == 0)

            let stored = try await db.pool.query(
                """
                SELECT date::text AS d FROM calendar_events UNION ALL SELECT deadline::text FROM deadlines
                UNION ALL SELECT deadline::text FROM decisions WHERE deadline IS NOT NULL
                UNION ALL SELECT event_date::text FROM rsvp_tracking UNION ALL SELECT deadline::text FROM rsvp_tracking WHERE deadline IS NOT NULL
                """).map { try $0.decode("d", as: String.self) }
            #expect(!stored.isEmpty, "the control conversation's items were written")
            #expect(Set(stored) == [Self.kept], "only the date inside the window reached a row: \(Set(stored))")
            let reminders: Int = try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE reminder_time < '2026-01-01' OR reminder_time > '2027-04-01'")[0].decode("n")
            #expect(reminders == 0)

            // Four dated features in six conversations with an implausible date: each item dropped and counted as a
            // date, unless the field check (which reads the date too) dropped it first as unbacked.
            for feature in ["calendar_events", "deadlines", "decisions", "rsvps"] {
                let tally = summary.grounding[feature] ?? GroundingTally()
                #expect(tally.dates + tally.unbacked == Self.dates.count - 1 && tally.dates >= Self.dates.count - 2, "\(feature): \(tally)")
            }
        }
    }
}
