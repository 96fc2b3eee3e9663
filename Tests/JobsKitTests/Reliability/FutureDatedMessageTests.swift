import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing

/// A member writes a message dated 2030 (row level security lets her choose `created_at`). Before issue 35 the scan
/// moved the conversation's watermark to 2030 and every later message, an urgent one included, waited until then
/// ("0 conversations scanned, 0 new messages"). Now the message is read as of the moment it is read, counted, and
/// recorded as read; the next message is scanned the next night, and neither is read twice.
@Suite("Reliability: a future-dated message")
struct FutureDatedMessageTests {
    static let year2030 = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01T00:00:00Z

    struct Chat {
        let ana: UUID, ben: UUID, conversation: UUID
    }

    static func chat(_ db: TestDatabase, now: Date) async throws -> Chat {
        func user(_ name: String) async throws -> UUID {
            let id = UUID()
            try await db.pool.query("INSERT INTO auth.users (id) VALUES ($1)", [id])
            try await db.pool.query("INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)",
                                    [id, "\(name)-\(id.uuidString.prefix(6))@example.com", "\(name)-\(id.uuidString.prefix(6))", name])
            return id
        }
        let ana = try await user("Ana"), ben = try await user("Ben")
        let conversation = UUID()
        try await db.pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, 'Carpool', false)", [conversation])
        for member in [ana, ben] {
            try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)", [conversation, member])
        }
        for (hours, text) in [(5.0, "Morning! Who drives on Thursday?"), (4.0, "I can take Thursday.")] {
            try await db.pool.query("INSERT INTO messages (conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4)",
                                    [conversation, ana, text, now.addingTimeInterval(-hours * 3600)])
        }
        return Chat(ana: ana, ben: ben, conversation: conversation)
    }

    /// A member's own insert, through the app's role and policies, with the date she chose.
    static func post(_ db: TestDatabase, as member: UUID, in conversation: UUID, _ text: String, at date: Date) async throws -> UUID {
        let id = UUID()
        try await db.asRole(member) { c in
            _ = try await c.query("INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, $5)",
                              [id, conversation, member, text, date])
        }
        return id
    }

    static func scan(_ db: TestDatabase) async throws -> ScanService.Summary {
        let rules = try ExtractionEngine(prompts: try Reliability.prompts(), provider: RulesAnswerProvider())
        var options = ScanOptions()
        options.preFilter = false
        return try await ScanService(pool: db.pool, engine: rules, options: options).run(now: Date())
    }

    @Test("a message dated 2030 is read once, counted, and the urgent message after it is scanned the next night")
    func futureDatedMessageCannotStallItsConversation() async throws {
        try await TestDatabase.with { db in
            let chat = try await Self.chat(db, now: Date())
            let first = try await Self.scan(db)
            #expect(first.conversations == 1 && first.failed == 0)

            _ = try await Self.post(db, as: chat.ana, in: chat.conversation, "See you all at the new year party!", at: Self.year2030)
            let second = try await Self.scan(db)
            #expect(second.conversations == 1 && second.newMessages == 1)
            #expect(second.futureDatedMessages == 1, "the future-dated message is counted")
            let watermark = try await Reliability.watermark(db.pool, chat.conversation)
            let dbNow: Date = try await db.pool.query("SELECT now() AS t")[0].decode("t")
            #expect((watermark.lastMessageAt ?? .distantFuture) <= dbNow, "the watermark never goes past now: \(watermark)")
            let recorded: Int = try await db.pool.query("SELECT count(*) AS n FROM scan_future_messages WHERE conversation_id = $1",
                                                        [chat.conversation])[0].decode("n")
            #expect(recorded == 1)
            let details: JSONValue = try await db.pool.query("SELECT details FROM job_runs WHERE id = $1", [second.runID])[0].decode("details")
            #expect(details["future_dated_messages"]?.integerValue == 1)

            // Nothing new: the future-dated message is not read again.
            let idle = try await Self.scan(db)
            #expect(idle.conversations == 0 && idle.newMessages == 0)

            let urgent = try await Self.post(db, as: chat.ben, in: chat.conversation, "URGENT: can someone pick up Emma today", at: Date())
            let third = try await Self.scan(db)
            #expect(third.conversations == 1, "the conversation is scanned tonight, not in 2030")
            #expect(third.newMessages == 1, "only the urgent message is new")
            #expect(third.futureDatedMessages == 0)
            let flagged: Int = try await db.pool.query("SELECT count(*) AS n FROM priority_messages WHERE message_id = $1", [urgent])[0].decode("n")
            #expect(flagged == 1, "the urgent message is a priority message tonight")
            let after = try await Self.scan(db)
            #expect(after.conversations == 0)
        }
    }

    @Test("migration repair: a watermark already pushed into the future goes back to its scan and the stalled messages are read")
    func aWatermarkPushedBeforeTheFixIsRepaired() async throws {
        try await TestDatabase.with { db in
            let chat = try await Self.chat(db, now: Date())
            _ = try await Self.scan(db)
            let future = try await Self.post(db, as: chat.ana, in: chat.conversation, "See you in 2030", at: Self.year2030)
            // What an older scan left: the watermark on the 2030 message.
            try await db.pool.query(
                "UPDATE scan_watermarks SET last_message_at = $2, last_message_id = $3, scanned_at = now() WHERE conversation_id = $1",
                [chat.conversation, Self.year2030, future])
            let stalled = try await Self.post(db, as: chat.ben, in: chat.conversation, "URGENT: can someone pick up Emma today", at: Date())
            #expect(try await Self.scan(db).conversations == 0, "stalled, as before the fix")
            let repair = try String(contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Sources/Postgres/Migrations/SQL/service/120_scan_future_messages.sql"), encoding: .utf8)
            // The migration's repair statements, run again on this database (the migration ran before the data existed).
            let section = "INSERT" + repair.components(separatedBy: "\nINSERT")[1]
            for statement in section.components(separatedBy: ";\n") {
                let sql = statement.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
                if !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { try await db.pool.query(sql) }
            }
            let third = try await Self.scan(db)
            #expect(third.conversations == 1 && third.newMessages == 1, "the stalled message, and only it, is read")
            #expect(try await db.pool.query("SELECT 1 FROM priority_messages WHERE message_id = $1", [stalled]).count == 1)
        }
    }
}

