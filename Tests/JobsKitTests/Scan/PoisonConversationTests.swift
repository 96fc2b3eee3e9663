import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// A conversation must not fail the same way every night: writes that could collide with the app's constraints update
/// the row instead, and one that still fails night after night is quarantined while the rest of the night goes on.
@Suite("Scan: no poison conversations")
struct PoisonConversationTests {
    /// A group where Alice asks for RSVPs (no date words: the model's date is kept as it says).
    struct Party {
        let alice: UUID, bob: UUID, carol: UUID
        let conversation: UUID
        let request: UUID

        static let requestText = "Maya's birthday party at our house, please RSVP"

        static func make(_ db: TestDatabase) async throws -> Party {
            let alice = try await SupabaseShape.user(db, "alice")
            let bob = try await SupabaseShape.user(db, "bob")
            let carol = try await SupabaseShape.user(db, "carol")
            let conversation = UUID(), request = UUID()
            try await db.pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, 'Class 3B parents', true)", [conversation])
            for member in [alice, bob, carol] {
                try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [conversation, member])
            }
            try await db.pool.query(
                "INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, '2026-03-03 15:00:00')",
                [request, conversation, alice, requestText])
            return Party(alice: alice, bob: bob, carol: carol, conversation: conversation, request: request)
        }

        /// A later message, so the next scan has something new and sends the request again as context.
        func say(_ text: String, from sender: UUID, at time: String, _ db: TestDatabase) async throws {
            try await db.pool.query(
                "INSERT INTO messages (conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4::timestamp)",
                [conversation, sender, text, time])
        }
    }

    /// The model's RSVP answer: the request message, read as an event on `date` (and on each of `more`, as more requests).
    static func rsvpAnswer(_ request: RecordedRequest, date: String, more: [String] = []) -> ScriptedReply {
        guard let line = ScanRequests.messageLines(request).first(where: { $0["text"]?.stringValue == Party.requestText }),
              let alias = line["id"], let sender = line["sender_id"] else {
            return .chat(content: #"{"rsvps": []}"#)
        }
        let items: [JSONValue] = ([date] + more).map { date in
            [
                "event": "Maya's birthday party", "event_date": .string(date), "deadline": nil, "requested_by": sender,
                "date_phrase": nil, "deadline_phrase": nil, "evidence": "Maya's birthday party at our house",
                "source_message_ids": [alias], "responses": [],
            ]
        }
        let answer: JSONValue = ["rsvps": .array(items)]
        return .chat(content: answer.serialized(), usage: FakeUsage(prompt: 100, completion: 20))
    }

    static func rsvpOptions() -> ScanOptions {
        var options = ScanHarness.options(concurrency: 1)
        options.features = [.rsvps]
        return options
    }

    static func rsvpRows(_ db: TestDatabase, _ party: Party) async throws -> [String: (date: String, status: String?, response: String?)] {
        var rows: [String: (date: String, status: String?, response: String?)] = [:]
        for row in try await db.pool.query(
            "SELECT user_id::text AS u, event_date::text AS d, status, response FROM rsvp_tracking WHERE message_id = $1", [party.request]) {
            rows[try row.decode("u")] = (try row.decode("d"), try row.decode("status"), try row.decode("response"))
        }
        return rows
    }

    @Test("the model re-dates a stored RSVP's event by 7 days: the rescan succeeds and keeps the one row; an answer given in the app stays")
    func aReDatedRSVPUpdatesItsRow() async throws {
        try await TestDatabase.with { db in
            let party = try await Party.make(db)
            let date = NIOLockedValueBox("2026-03-07")
            let server = try FakeOpenAIServer { Self.rsvpAnswer($0, date: date.withLockedValue { $0 }) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)

            let first = try await ScanHarness.scan(db, engine, Self.rsvpOptions())
            #expect(first.failed == 0 && first.conversations == 1, "\(first.failures)")
            var rows = try await Self.rsvpRows(db, party)
            #expect(Set(rows.keys) == [party.bob.postgresValue, party.carol.postgresValue])
            #expect(rows.values.allSatisfy { $0.date == "2026-03-07" })
            // Carol answers in the app (the app's own write: no answering message).
            try await db.pool.query(
                "UPDATE rsvp_tracking SET status = 'responded', response = 'no', responded_at = now() WHERE message_id = $1 AND user_id = $2",
                [party.request, party.carol])

            // One new message; the model now reads the event a week later.
            try await party.say("Can't wait!", from: party.bob, at: "2026-03-04 09:00:00", db)
            date.withLockedValue { $0 = "2026-03-14" }
            let second = try await ScanHarness.scan(db, engine, Self.rsvpOptions())
            #expect(second.failed == 0, "\(second.failures)")
            #expect(second.conversations == 1)
            rows = try await Self.rsvpRows(db, party)
            #expect(rows.count == 2, "one row per message and user: \(rows)")
            // The re-dated item cites only the messages it already rests on: a restatement, which may not move it
            // (docs/over-nights.md): the one row keeps its date.
            #expect(rows.values.allSatisfy { $0.date == "2026-03-07" }, "\(rows)")
            #expect(rows[party.carol.postgresValue]?.status == "responded" && rows[party.carol.postgresValue]?.response == "no",
                    "her own answer is not rewritten: \(rows)")
            #expect(rows[party.bob.postgresValue]?.status == "pending")
            let failures: Int = try await db.pool.query(
                "SELECT failures FROM scan_watermarks WHERE conversation_id = $1", [party.conversation])[0].decode("failures")
            #expect(failures == 0)

            // And back again, with a rescan of everything (the extract command's replace mode keeps her row too).
            try await party.say("See you there", from: party.carol, at: "2026-03-04 10:00:00", db)
            date.withLockedValue { $0 = "2026-03-07" }
            let third = try await ScanHarness.scan(db, engine, Self.rsvpOptions())
            #expect(third.failed == 0, "\(third.failures)")
            rows = try await Self.rsvpRows(db, party)
            #expect(rows.count == 2 && rows.values.allSatisfy { $0.date == "2026-03-07" }, "\(rows)")
        }
    }

    @Test("two requests the model reads in one message are one RSVP per user (the app's UNIQUE(message_id, user_id)), not a failure")
    func twoRequestsInOneMessageDoNotCollide() async throws {
        try await TestDatabase.with { db in
            let party = try await Party.make(db)
            let server = try FakeOpenAIServer { Self.rsvpAnswer($0, date: "2026-03-07", more: ["2026-03-08"]) }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server), Self.rsvpOptions())
            #expect(summary.failed == 0, "\(summary.failures)")
            let rows = try await Self.rsvpRows(db, party)
            #expect(rows.count == 2 && rows.values.allSatisfy { $0.date == "2026-03-07" }, "\(rows)")
        }
    }

    @Test("a conversation failing the same way on 3 scans in a row is quarantined with its reason, and so is one the server fails while it answers the others; the others proceed")
    func aPoisonConversationIsQuarantined() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 5, active: 5, newMessages: 3, seed: 71)
            try await ScanHarness.load(workload, into: db)
            let poison = workload.conversations[1], flaky = workload.conversations[3]
            let outage = NIOLockedValueBox(true)
            let server = try FakeOpenAIServer { request in
                switch ScanRequests.conversation(request) {
                case poison.name: return .error(status: 400, message: "this conversation's request is refused by the test")
                case flaky.name where outage.withLockedValue { $0 }: return .error(status: 503, message: "the model is down", type: "server_error")
                default: return ScanRequests.answer(request)
                }
            }
            defer { server.stop() }
            // One conversation's requests failing with 503 while the others are answered: the server is up, so this is
            // the conversation's failure and it counts (a whole outage, which blames no conversation, is
            // ModelOutageTests' and QuarantineSignatureTests'; half the conversations failing, PartialOutageTests').
            let engine = try ScanHarness.engine(server, breaker: CircuitBreaker(server: server.baseURL.absoluteString, threshold: 1_000))
            func quarantine(_ id: UUID) async throws -> (at: Date?, reason: String?, same: Int) {
                let row = try await db.pool.query(
                    "SELECT quarantined_at, quarantine_reason, same_failures FROM scan_watermarks WHERE conversation_id = $1", [id])[0]
                return (try row.decode("quarantined_at"), try row.decode("quarantine_reason"), try row.decode("same_failures"))
            }

            let first = try await ScanHarness.scan(db, engine)
            #expect(first.conversations == 3 && first.failed == 2, "\(first.failures)")
            #expect(first.quarantined.isEmpty)
            let second = try await ScanHarness.scan(db, engine)
            #expect(second.failed == 2 && second.quarantined.isEmpty)
            let third = try await ScanHarness.scan(db, engine)
            #expect(third.failed == 2)
            #expect(Set(third.quarantined.map(\.conversationID)) == [poison.id, flaky.id], "\(third.quarantined)")
            #expect(third.quarantinedTotal == 2)
            #expect(ScanReport.text(third).contains("QUARANTINED \(poison.id.postgresValue)"))
            let poisoned = try await quarantine(poison.id)
            #expect(poisoned.at != nil && poisoned.same == 3)
            #expect(poisoned.reason?.contains("HTTP 400") == true, "\(poisoned.reason ?? "nil")")
            // Three nights of 503s for one conversation while the server answers the others: quarantined too, its own
            // cause (status and body) in each failure.
            let down = try await quarantine(flaky.id)
            #expect(down.at != nil && down.same == 3, "\(down)")
            let history = try #require(try await Quarantine(pool: db.pool).show(flaky.id)).recent
            #expect(history.count == 3 && history.allSatisfy { $0.signature != nil && $0.error.contains("HTTP 503") && $0.error.contains("the model is down") },
                    "\(history)")
            let details: [String] = try await db.pool.query(
                "SELECT jsonb_array_elements_text(details->'quarantined') AS q FROM job_runs WHERE id = $1", [third.runID]).map { try $0.decode("q") }
            #expect(Set(details) == [poison.id.postgresValue, flaky.id.postgresValue])

            // The next night: the poison conversation is passed over, the others go on (a new message, the model back).
            outage.withLockedValue { $0 = false }
            try await db.pool.query(
                "INSERT INTO messages (conversation_id, sender_id, content, created_at) SELECT $1, sender_id, 'one more', now() FROM messages WHERE conversation_id = $1 LIMIT 1",
                [workload.conversations[0].id])
            let asked = server.requests.count
            let fourth = try await ScanHarness.scan(db, engine)
            #expect(fourth.failed == 0, "\(fourth.failures)")
            #expect(fourth.conversations == 1, "the one with a new message")
            #expect(!server.requests[asked...].contains { ScanRequests.conversation($0) == poison.name }, "no model call for the quarantined one")
            #expect(fourth.quarantinedTotal == 2)

            // An operator retries them: both are tried again (the server answers the flaky one now), and one more
            // failure starts a new count.
            var retry = ScanHarness.options()
            retry.retryQuarantined = true
            let fifth = try await ScanHarness.scan(db, engine, retry)
            #expect(fifth.quarantineReleased == 2)
            #expect(fifth.failed == 1 && fifth.failures.first?.conversationID == poison.id)
            let again = try await quarantine(poison.id)
            #expect(again.at == nil && again.same == 1)
        }
    }

    @Test("a read past the cap says how many messages were skipped, in the summary and in job_runs.details")
    func messagesOverTheReadCapAreCounted() async throws {
        try await TestDatabase.with { db in
            let party = try await Party.make(db)
            for minute in 0..<24 {
                try await party.say("note \(minute)", from: party.bob, at: String(format: "2026-03-03 16:%02d:00", minute), db)
            }
            let server = try FakeOpenAIServer { Self.rsvpAnswer($0, date: "2026-03-07") }
            defer { server.stop() }
            var options = Self.rsvpOptions()
            options.maxMessages = 10
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server), options)
            #expect(summary.failed == 0)
            #expect(summary.messagesOverCap == 15, "25 messages, the newest 10 read")
            #expect(summary.overCap.first?.conversationID == party.conversation)
            #expect(ScanReport.text(summary).contains("15 older ones were skipped"))
            let recorded: Int = try await db.pool.query(
                "SELECT (details->>'messages_over_cap')::int AS n FROM job_runs WHERE id = $1", [summary.runID])[0].decode("n")
            #expect(recorded == 15)
        }
    }
}
