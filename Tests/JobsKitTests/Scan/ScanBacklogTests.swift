import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// A conversation with more new messages than a scan reads (the read cap, here 10): the newest are read tonight, the
/// backlog on the next nights with the room new messages leave, oldest first; every message is read exactly once.
/// Before issue 35 the oldest were read first, so today's messages waited behind the backlog (20,000 messages: nine
/// nights).
@Suite("Scan: newest first under a backlog")
struct ScanBacklogTests {
    static func scan(_ db: TestDatabase) async throws -> ScanService.Summary {
        let rules = try ExtractionEngine(prompts: try Reliability.prompts(), provider: RulesAnswerProvider())
        var options = ScanOptions()
        options.preFilter = false
        options.maxMessages = 10
        // One message of context: an answer holds at most 10 priority messages (the schema's maxItems) and the rules
        // provider flags urgent context messages too, so a context of earlier urgent messages would crowd out new ones.
        options.contextMessages = 1
        return try await ScanService(pool: db.pool, engine: rules, options: options).run(now: Date())
    }

    /// Posts urgent messages (each one becomes a priority message), one a minute ending `minutesAgo` before now.
    static func post(_ db: TestDatabase, _ chat: FutureDatedMessageTests.Chat, _ numbers: ClosedRange<Int>, endingMinutesAgo end: Int) async throws -> [UUID] {
        var ids: [UUID] = []
        for (offset, number) in numbers.enumerated() {
            let id = UUID()
            let at = Date().addingTimeInterval(-Double(end + numbers.count - offset) * 60)
            try await db.pool.query("INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, $5)",
                                    [id, chat.conversation, chat.ben, "URGENT \(number): the gym is closed", at])
            ids.append(id)
        }
        return ids
    }

    static func flagged(_ db: TestDatabase) async throws -> Set<UUID> {
        Set(try await db.pool.query("SELECT message_id FROM priority_messages").map { try $0.decode("message_id") })
    }

    @Test("the newest window is read first, then the backlog oldest first, nothing skipped or read twice")
    func newestFirstThenTheBacklog() async throws {
        try await TestDatabase.with { db in
            let chat = try await FutureDatedMessageTests.chat(db, now: Date().addingTimeInterval(-6 * 3600))
            #expect(try await Self.scan(db).conversations == 1)
            #expect(try await Self.flagged(db).isEmpty)

            let backlog = try await Self.post(db, chat, 1...25, endingMinutesAgo: 60)
            let night1 = try await Self.scan(db)
            #expect(night1.newMessages == 10 && night1.backlogged == 1)
            #expect(try await Self.flagged(db) == Set(backlog.suffix(10)), "tonight reads the newest ten")

            let today = try await Self.post(db, chat, 26...28, endingMinutesAgo: 0)
            let night2 = try await Self.scan(db)
            #expect(night2.newMessages == 10, "the three new ones and seven of the backlog")
            #expect(try await Self.flagged(db) == Set(Array(backlog.suffix(10)) + today + Array(backlog.prefix(7))), "new first, then the oldest of the backlog")

            let night3 = try await Self.scan(db)
            #expect(night3.newMessages == 8)
            #expect(try await Self.flagged(db) == Set(backlog + today))
            let gaps: Int = try await db.pool.query("SELECT count(*) AS n FROM scan_backlog")[0].decode("n")
            #expect(gaps == 0)
            let idle = try await Self.scan(db)
            #expect(idle.conversations == 0)
            #expect(night1.newMessages + night2.newMessages + night3.newMessages == backlog.count + today.count, "each read once")
        }
    }
}
