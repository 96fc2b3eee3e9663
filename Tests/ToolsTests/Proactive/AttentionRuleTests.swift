import Core
import Foundation
import Tools
import Testing

/// RSVPs, deadlines, priority messages and reminders on the user's own calendar days.
@Suite struct AttentionRuleTests {
    static let user = ConflictRuleTests.user
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let now = ISO8601DateFormatter().date(from: "2026-11-23T20:00:00Z")!  // Tuesday Nov 24, 05:00 in Tokyo

    static func findings(_ build: (inout ProactiveRows) -> Void) -> [Finding] {
        var rows = ProactiveRows()
        rows.zones = [user: tokyo]
        build(&rows)
        return ProactiveEngine().findings(from: rows, now: now)[user] ?? []
    }

    static func id(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))! }

    @Test func rsvpRaisedWhenTheReplyByDateOrTheEventIsNear() throws {
        let found = Self.findings { rows in
            rows.rsvps = [
                .init(userID: Self.user, id: Self.id(1), eventName: "Party", deadline: LocalDate(iso: "2026-11-26"),
                      eventDate: LocalDate(iso: "2026-12-20")!, requestedBy: "Jenny", conversation: "Birthday"),
                .init(userID: Self.user, id: Self.id(2), eventName: "Far away", deadline: LocalDate(iso: "2026-12-10"),
                      eventDate: LocalDate(iso: "2026-12-20")!, requestedBy: nil, conversation: "Chat"),
                .init(userID: Self.user, id: Self.id(3), eventName: "Late", deadline: LocalDate(iso: "2026-11-22"),
                      eventDate: LocalDate(iso: "2026-11-27")!, requestedBy: nil, conversation: "Chat"),
            ]
        }
        #expect(Set(found.map { $0.subjectKey }) == ["rsvp:\(Self.id(1).uuidString.lowercased())", "rsvp:\(Self.id(3).uuidString.lowercased())"])
        let late = try #require(found.first { $0.citedIDs == [Self.id(3)] })
        #expect(late.severity == .high)
        #expect(late.suggestion.contains("The reply-by date was Sunday Nov 22"))
        let party = try #require(found.first { $0.citedIDs == [Self.id(1)] })
        #expect(party.suggestion.contains("Jenny's invitation to Party") && party.suggestion.contains("Reply by Thursday Nov 26"))
    }

    @Test func deadlinesInTheComingWeekOfTheUsersCalendar() throws {
        let found = Self.findings { rows in
            rows.deadlines = [
                // Tuesday Nov 24 in Tokyo is "today", though it is still Monday in UTC.
                .init(userID: Self.user, id: Self.id(1), task: "Pay the fee", deadline: LocalDate(iso: "2026-11-24")!, time: nil, dueAt: nil, status: "pending"),
                .init(userID: Self.user, id: Self.id(2), task: "Slip", deadline: LocalDate(iso: "2026-11-27")!, time: nil, dueAt: nil, status: "pending"),
                // Seven days ahead: the last day of the coming week, raised since issue 49 (three days before).
                .init(userID: Self.user, id: Self.id(3), task: "Library books", deadline: LocalDate(iso: "2026-12-01")!, time: nil, dueAt: nil, status: "pending"),
                .init(userID: Self.user, id: Self.id(4), task: "Too far", deadline: LocalDate(iso: "2026-12-02")!, time: nil, dueAt: nil, status: "pending"),
                .init(userID: Self.user, id: Self.id(5), task: "Yesterday", deadline: LocalDate(iso: "2026-11-23")!, time: nil, dueAt: nil, status: "pending"),
            ]
        }
        #expect(found.map(\.citedIDs) == [[Self.id(1)], [Self.id(2)], [Self.id(3)]])
        #expect(found[0].suggestion == "Due today (Tuesday Nov 24): Pay the fee.")
        #expect(found[0].severity == .high && found[1].severity == .medium && found[2].severity == .medium)
        // The window is a setting (MESSAGEAI_DEADLINE_DAYS): three days leaves the library books out.
        var options = ProactiveOptions()
        options.deadlineDays = 3
        var rows = ProactiveRows()
        rows.zones = [Self.user: Self.tokyo]
        rows.deadlines = [.init(userID: Self.user, id: Self.id(3), task: "Library books", deadline: LocalDate(iso: "2026-12-01")!,
                                time: nil, dueAt: nil, status: "pending")]
        #expect(ProactiveEngine(options: options).findings(from: rows, now: Self.now)[Self.user]?.isEmpty == true)
    }

    @Test func urgentAndHighMessagesAboutTodayOrTomorrow() throws {
        let sent = Self.now.addingTimeInterval(-3 * 3600)  // Tuesday Nov 24, 02:00 in Tokyo
        func message(_ n: Int, _ priority: String, eventDay: String?, sentAt: Date = sent) -> ProactiveRows.Priority {
            .init(userID: Self.user, messageID: Self.id(n), priority: priority, reason: "Arrange pickup", sentAt: sentAt,
                  eventDay: eventDay.flatMap(LocalDate.init(iso:)), sender: "Ms. Alvarez", conversation: "Room 12\nParents",
                  text: "URGENT: early dismissal tomorrow at 12:30. Please arrange pickup.")
        }
        let found = Self.findings { rows in
            rows.priorities = [
                message(1, "urgent", eventDay: "2026-11-25"),  // its event is tomorrow
                message(2, "high", eventDay: "2026-11-24"),  // today
                message(3, "urgent", eventDay: "2026-11-26"),  // the day after tomorrow: not yet
                message(4, "urgent", eventDay: "2026-11-23"),  // yesterday: over
                message(5, "urgent", eventDay: nil, sentAt: sent.addingTimeInterval(-86_400)),  // no event, sent yesterday
                message(6, "high", eventDay: nil, sentAt: sent.addingTimeInterval(-2 * 86_400)),  // no event, sent two days ago
            ]
        }
        #expect(Set(found.map(\.citedIDs)) == [[Self.id(1)], [Self.id(2)], [Self.id(5)]])
        let dismissal = try #require(found.first { $0.citedIDs == [Self.id(1)] })
        #expect(dismissal.kind == .priority && dismissal.severity == .high && dismissal.title == "Urgent: tomorrow (Wednesday Nov 25)")
        #expect(dismissal.suggestion == "Ms. Alvarez in Room 12 Parents: \"URGENT: early dismissal tomorrow at 12:30. Please arrange pickup.\" Arrange pickup.")
        #expect(dismissal.cites == [Citation(table: "priority_messages", id: Self.id(1))])
        #expect(found.first { $0.citedIDs == [Self.id(2)] }?.severity == .medium)
    }

    @Test func remindersComingDueWithinADay() throws {
        let found = Self.findings { rows in
            rows.reminders = [
                .init(userID: Self.user, id: Self.id(1), title: "Call the dentist", at: Self.now.addingTimeInterval(3 * 3600)),
                .init(userID: Self.user, id: Self.id(2), title: "Later", at: Self.now.addingTimeInterval(30 * 3600)),
                .init(userID: Self.user, id: Self.id(3), title: "Past", at: Self.now.addingTimeInterval(-60)),
            ]
        }
        #expect(found.map(\.citedIDs) == [[Self.id(1)]])
        #expect(found[0].suggestion == "Reminder today (Tuesday Nov 24) at 08:00: Call the dentist.")
    }
}
