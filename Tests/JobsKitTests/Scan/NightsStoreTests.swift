import Core
@testable import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// The store over nights with answers that speak of known items (`Extraction.known`, as the prompt's `known` list
/// decodes into): each night goes through `ExtractionStore.write` (the one write of scan, extract and batch collect)
/// into real Postgres, and the app's tables say what the parents see.
@Suite("Nights: the store keeps one truth")
struct NightsStoreTests {
    /// Tuesday 2026-12-01, noon UTC.
    static let day0 = Date(timeIntervalSince1970: 1_796_126_400)
    static func day(_ n: Int) -> Date { day0.addingTimeInterval(Double(n) * 86_400) }
    static func date(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }

    /// A moved party is one row at its latest date, a cancelled game is gone, a slip met by one parent is completed for
    /// her with her reminder cancelled and open for the other, a confirmed event the chat cancels keeps its row.
    @Test("known verdicts: moved, cancelled, met for one parent, a confirmed event cancelled")
    func knownVerdicts() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let m1 = try await chat.say(chat.teacher, "Emma's birthday party Saturday Dec 12 at 2pm at Jump Zone", at: Self.day0, db)
            let m2 = try await chat.say(chat.teacher, "Soccer game Sunday Dec 13 at 10am", at: Self.day0, db)
            let m3 = try await chat.say(chat.teacher, "Permission slip due Dec 11, every family", at: Self.day0, db)
            let m4 = try await chat.say(chat.teacher, "Class picnic Dec 14 at noon", at: Self.day0, db)
            let party = NightChat.event("Emma's birthday party", Self.date("2026-12-12"), time: LocalTime(hour: 14, minute: 0),
                                        location: "Jump Zone", sources: [m1])
            let first = try await chat.write(.night([
                .event(party), .event(NightChat.event("Soccer game", Self.date("2026-12-13"), time: LocalTime(hour: 10, minute: 0), sources: [m2])),
                .event(NightChat.event("Class picnic", Self.date("2026-12-14"), sources: [m4])),
                .deadline(NightChat.deadline("Permission slip", Self.date("2026-12-11"), sources: [m3])),
            ]), chat.input(now: Self.day0), now: Self.day0, db)
            #expect(first.inserted["calendar_events"] == 3)
            #expect(first.inserted["deadlines"] == 2, "one per parent; the teacher announced it")
            #expect(first.remindersCreated == 2)
            // Maria confirms the picnic in the app.
            try await db.pool.query("UPDATE calendar_events SET confirmed = true WHERE conversation_id = $1 AND title = 'Class picnic'",
                                    [chat.conversation])

            let state = try await chat.state(db, now: Self.day(1))
            func ref(_ words: String) throws -> String { try #require(state.items.first { $0.body.words == words }?.ref) }
            let (partyRef, gameRef, picnicRef, slipRef) = (try ref("Emma's birthday party"), try ref("Soccer game"), try ref("Class picnic"),
                                                           try ref("Permission slip"))
            #expect(state.items.count == 4)
            #expect(state[picnicRef]?.confirmed == true, "the parent's confirmation is read from the app's row")
            let firstNew = chat.messages.count
            let m5 = try await chat.say(chat.maria, "The party moves to Sunday Dec 13 at 3pm, same place", at: Self.day(1), db)
            let m6 = try await chat.say(chat.teacher, "Sunday's game is cancelled", at: Self.day(1), db)
            let m7 = try await chat.say(chat.dan, "Handed in our slip today", at: Self.day(1), db)
            let m8 = try await chat.say(chat.teacher, "The picnic is cancelled, sorry", at: Self.day(1), db)
            var moved = party
            (moved.date, moved.time, moved.sources) = (Self.date("2026-12-13"), LocalTime(hour: 15, minute: 0), [m5])
            let second = try await chat.write(.night([], known: [
                Verdict(ref: partyRef, .changed(.event(moved)), evidence: [m5]),
                Verdict(ref: gameRef, .cancelled, evidence: [m6]),
                Verdict(ref: slipRef, .met(for: [chat.dan.postgresValue]), evidence: [m7]),
                Verdict(ref: picnicRef, .cancelled, evidence: [m8]),
            ]), chat.input(now: Self.day(1), firstNew: firstNew, state: state), now: Self.day(1), db)
            #expect(second.refused.isEmpty, "\(second.refusals)")
            #expect(second.closed["calendar_events"] == 2)

            let events = try await db.pool.query("""
                SELECT title, date::text AS date, time::text AS time, confirmed, closed_at IS NOT NULL AS closed, closed_reason
                FROM calendar_events WHERE conversation_id = $1 ORDER BY title
                """, [chat.conversation])
            let shown = try events.filter { try !$0.decode("closed", as: Bool.self) }
            #expect(try shown.map { try $0.decode("title", as: String.self) } == ["Emma's birthday party"])
            #expect(try shown.first?.decode("date", as: String.self) == "2026-12-13")
            #expect(try shown.first?.decode("time", as: String?.self) == "15:00:00")
            #expect(try events.map { try $0.decode("title", as: String.self) } == ["Class picnic", "Emma's birthday party"],
                    "the cancelled game's row is gone; the confirmed picnic's stays")
            let picnic = try #require(events.first)
            #expect(try picnic.decode("confirmed", as: Bool.self))
            #expect(try picnic.decode("closed", as: Bool.self))
            #expect(try picnic.decode("closed_reason", as: String?.self) == "cancelled")

            let slips = try await db.pool.query("""
                SELECT d.user_id, d.status, d.closed_reason, r.status AS reminder FROM deadlines d
                LEFT JOIN reminders r ON r.deadline_id = d.id WHERE d.conversation_id = $1
                """, [chat.conversation])
            #expect(slips.count == 2)
            for row in slips {
                let user: UUID = try row.decode("user_id")
                if user == chat.dan {
                    #expect(try row.decode("status", as: String.self) == "completed")
                    #expect(try row.decode("closed_reason", as: String?.self) == "met")
                    #expect(try row.decode("reminder", as: String?.self) == "cancelled")
                } else {
                    #expect(user == chat.maria)
                    #expect(try row.decode("status", as: String.self) == "pending")
                    #expect(try row.decode("reminder", as: String?.self) == "pending")
                }
            }
            let after = try await chat.state(db, now: Self.day(2))
            #expect(after.openItems.map(\.ref).sorted() == [partyRef, slipRef].sorted())
            #expect(after[slipRef]?.metFor == [chat.dan.postgresValue])
        }
    }

    @Test("yesterday's urgent priority is gone today; a refused verdict is counted and the rest of the answer kept")
    func urgentLapsesAndRefusalsAreCounted() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let m1 = try await chat.say(chat.teacher, "School lets out at 1pm today", at: Self.day0, db)
            let first = try await chat.write(.night([
                .priority(PriorityItem(messageID: m1, priority: "urgent", reason: "Early dismissal today", actionRequired: true)),
            ]), chat.input(now: Self.day0), now: Self.day0, db)
            #expect(first.inserted["priority_messages"] == 1)

            let state = try await chat.state(db, now: Self.day(1))
            #expect(state.items.first?.until == LocalDate(Self.day0, in: TimeZone(identifier: "UTC")!), "an urgent message's day")
            let firstNew = chat.messages.count
            let m2 = try await chat.say(chat.maria, "Thanks for the heads up! Pizza night on Dec 9 at 6pm?", at: Self.day(1), db)
            let second = try await chat.write(.night([
                .event(NightChat.event("Pizza night", Self.date("2026-12-09"), time: LocalTime(hour: 18, minute: 0), sources: [m2])),
            ], known: [Verdict(ref: "e9", .cancelled, evidence: [m2])]),
                chat.input(now: Self.day(1), firstNew: firstNew, state: state), now: Self.day(1), db)
            #expect(second.refused == ["unknownRef": 1])
            #expect(second.inserted["calendar_events"] == 1, "the rest of the answer is kept")
            #expect(second.closed["priority_messages"] == 1)
            let flagged: Int = try await db.pool.query(
                "SELECT count(*) AS n FROM priority_messages WHERE conversation_id = $1 AND closed_at IS NULL", [chat.conversation])[0].decode("n")
            #expect(flagged == 0)
            let status: String = try await db.pool.query(
                "SELECT status FROM tracked_items WHERE conversation_id = $1 AND feature = 'priority_messages'", [chat.conversation])[0].decode("status")
            #expect(status == "lapsed")
        }
    }

    @Test("the first night of tracked items adopts the rows earlier nights and the app wrote instead of adding them again")
    func adoptsEarlierRows() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let m1 = try await chat.say(chat.teacher, "Emma's birthday party Saturday Dec 12 at 2pm", at: Self.day0, db)
            // A row the app wrote itself (no key), and a deadline an earlier night wrote under the old key.
            try await db.pool.query("""
                INSERT INTO calendar_events (conversation_id, message_id, title, date, time, category, confidence)
                VALUES ($1, $2::uuid, 'Emma''s birthday party', '2026-12-12', '14:00', 'social', 0.9)
                """, [chat.conversation, m1])
            let oldKey = "deadline:\(chat.conversation.postgresValue):\(m1):2026-12-11"
            try await db.pool.query("""
                INSERT INTO deadlines (conversation_id, message_id, user_id, task, deadline, category, priority, idempotency_key, item_key)
                VALUES ($1, $2::uuid, $3, 'Bring a gift', '2026-12-11', 'other', 'medium', $4 || ':' || $5, $4)
                """, [chat.conversation, m1, chat.maria, oldKey, chat.maria.postgresValue])
            let state = try await chat.state(db, now: Self.day0)
            #expect(state.items.map(\.origin) == [.app, .service])
            let firstNew = chat.messages.count
            let m2 = try await chat.say(chat.dan, "Emma's birthday party on Dec 12, we'll be there", at: Self.day(1), db)
            let night = try await chat.write(.night([
                .event(NightChat.event("Emma's birthday party", Self.date("2026-12-12"), time: LocalTime(hour: 14, minute: 0), sources: [m2])),
            ]), chat.input(now: Self.day(1), firstNew: firstNew, state: state), now: Self.day(1), db)
            #expect(night.inserted["calendar_events"] == nil, "the app's row is the item's: updated, not added")
            let events: Int = try await db.pool.query("SELECT count(*) AS n FROM calendar_events WHERE conversation_id = $1",
                                                      [chat.conversation])[0].decode("n")
            #expect(events == 1)
            let keys = try await db.pool.query("SELECT idempotency_key FROM deadlines WHERE conversation_id = $1", [chat.conversation])
                .map { try $0.decode("idempotency_key", as: String.self) }
            #expect(keys.contains("deadline:\(chat.conversation.postgresValue):t1:\(chat.maria.postgresValue)"), "re-keyed by its ref")
            #expect(keys.count == 2, "the adopted deadline is written for every parent who owes it: Dan's row added, Maria's kept")
            let tracked: Int = try await db.pool.query("SELECT count(*) AS n FROM tracked_items WHERE conversation_id = $1",
                                                       [chat.conversation])[0].decode("n")
            #expect(tracked == 2)
        }
    }

    /// What `tracked_items.item` and a batch's input snapshot hold: every feature's item, read back as it was written.
    @Test func trackedItemsReadBackAsWritten() throws {
        var state = ConversationState()
        let bodies: [ItemBody] = [
            .event(NightChat.event("Party", Self.date("2026-12-12"), time: LocalTime(hour: 14, minute: 0), location: "Jump Zone", sources: ["m1"])),
            .deadline(NightChat.deadline("Slip", Self.date("2026-12-11"), sources: ["m2"])),
            .priority(PriorityItem(messageID: "m3", priority: "urgent", reason: "Early dismissal", actionRequired: true)),
            .rsvp(RSVPItem(event: "Party", eventDate: Self.date("2026-12-12"), deadline: nil, requestedBy: "u1", datePhrase: nil, modelDate: nil,
                           sources: ["m1"], responses: [RSVPReply(participantID: "u2", response: "yes", messageID: "m4")])),
            .decision(DecisionItem(decision: "Dan drives Tuesday", category: .carpool, decidedBy: "u2", deadline: nil, datePhrase: nil,
                                   modelDate: nil, sources: ["m5"])),
        ]
        for body in bodies { _ = state.add(body, until: nil) }
        state.update("t1") { $0.metFor = ["u2"] }
        let json = try JSONValue.encode(state.stored)
        let read = ConversationState(stored: try json.decode([StoredTrackedItem].self))
        #expect(read == state)
        #expect(try JSONValue.encode(bodies[0])["event"]?["title"] == "Party", "one key, the feature's short name")
    }
}
