import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// Edits and deletions behind the watermark (issue 46, docs/over-nights.md phase 2 point 3): an edited message is
/// read again as new with its context, a deleted one's id goes into `deletedMessageIDs`, and the next scan takes a
/// conversation whose only change is an edit or a deletion.
@Suite("Reader: edits and deletions since the last scan")
struct ReaderEditsTests {
    /// A conversation the first scan read, its messages oldest first.
    static func scanned(_ db: TestDatabase, _ server: FakeOpenAIServer) async throws -> (UUID, [Workload.Message]) {
        let workload = try ScanHarness.workload(conversations: 4, active: 2)
        try await ScanHarness.load(workload, into: db)
        _ = try await ScanHarness.scan(db, try ScanHarness.engine(server))
        let conversation = try #require(workload.conversations.first { conversation in
            conversation.isActive && workload.messages.count { $0.conversationID == conversation.id } >= 8
        })
        let messages = workload.messages.filter { $0.conversationID == conversation.id }
            .sorted { ($0.sentAt, $0.id.postgresValue) < ($1.sentAt, $1.id.postgresValue) }
        return (conversation.id, messages)
    }

    static func edit(_ id: UUID, to text: String, _ db: TestDatabase) async throws {
        try await db.pool.query("UPDATE messages SET content = $2, updated_at = now() AT TIME ZONE 'UTC' WHERE id = $1", [id, text])
    }

    static func delete(_ id: UUID, _ db: TestDatabase) async throws {
        try await db.pool.query("UPDATE messages SET deleted_at = now() AT TIME ZONE 'UTC' WHERE id = $1", [id])
    }

    static func read(_ conversation: UUID, _ db: TestDatabase, _ reader: ConversationReader = ConversationReader(contextMessages: 2))
        async throws -> ConversationReader.Read {
        try await db.pool.withConnection { c in
            let row = try await c.query("SELECT last_message_at, last_message_id FROM scan_watermarks WHERE conversation_id = $1", [conversation])[0]
            let watermark = ConversationReader.Watermark(sentAt: try row.decode("last_message_at"), messageID: try row.decode("last_message_id"))
            return try #require(try await reader.read(conversation, since: watermark, now: ScanHarness.now, on: c))
        }
    }

    @Test("an edited message is new again with the messages before it; a deleted one is named and left out")
    func editedIsNewDeletedIsNamed() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let (conversation, messages) = try await Self.scanned(db, server)
            // Nothing changed: nothing is new.
            let quiet = try await Self.read(conversation, db)
            #expect(quiet.input.firstNewIndex == quiet.input.messages.count)
            #expect(quiet.input.deletedMessageIDs.isEmpty && quiet.edits.edited.isEmpty)

            let (edited, deleted) = (messages[4], messages[5])
            try await Self.edit(edited.id, to: "Correction: practice is Friday at 6pm, not 5", db)
            try await Self.delete(deleted.id, db)
            let read = try await Self.read(conversation, db)
            let ids = read.input.messages.map(\.id)
            let editedIndex = try #require(ids.firstIndex(of: edited.id.postgresValue))
            #expect(read.input.firstNewIndex == editedIndex, "the edited message is the first new one")
            #expect(read.input.messages[editedIndex].text == "Correction: practice is Friday at 6pm, not 5")
            // Its context: the three messages just before it.
            for earlier in messages[1...3] {
                #expect(ids.contains(earlier.id.postgresValue), "context \(earlier.text)")
            }
            #expect(!ids.contains(messages[0].id.postgresValue), "three messages of context, not the whole chat")
            #expect(!ids.contains(deleted.id.postgresValue))
            #expect(read.input.deletedMessageIDs == [deleted.id.postgresValue])
            #expect(read.edits.edited == [edited.id.postgresValue] && read.edits.editsOverCap == 0)
        }
    }

    @Test("the next scan takes a conversation whose only change is an edit, sends the new text, then sends nothing")
    func anEditAloneIsScannedOnce() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let (conversation, messages) = try await Self.scanned(db, server)
            let engine = try ScanHarness.engine(server)
            #expect(try await ScanHarness.scan(db, engine).conversations == 0, "nothing new yet")

            let text = "Edit: the bake sale is Thursday the 12th"
            try await Self.edit(messages[5].id, to: text, db)
            let before = server.requests.count
            let summary = try await ScanHarness.scan(db, engine)
            #expect(summary.conversations == 1)
            let sent = server.requests.dropFirst(before)
            #expect(!sent.isEmpty)
            for request in sent {
                let texts = ScanRequests.messageLines(request).compactMap { $0["text"]?.stringValue }
                #expect(texts.contains(text), "feature \(ScanRequests.feature(request))")
            }
            let after = server.requests.count
            #expect(try await ScanHarness.scan(db, engine).conversations == 0, "read once: the read moved read_at")
            #expect(server.requests.count == after)

            // A deletion alone also makes it pending; the read names it.
            try await Self.delete(messages[6].id, db)
            #expect(try await Self.read(conversation, db).input.deletedMessageIDs == [messages[6].id.postgresValue])
            #expect(try await ScanHarness.scan(db, engine).conversations == 1)
            #expect(try await ScanHarness.scan(db, engine).conversations == 0)
        }
    }

    @Test("at most maxEditedMessages edits are read again in one night, the latest ones")
    func editsAreCapped() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let (conversation, messages) = try await Self.scanned(db, server)
            for (n, message) in messages.prefix(4).enumerated() {
                try await Self.edit(message.id, to: "edit \(n)", db)
                // updated_at is the order of the edits: each a moment after the last.
                try await db.pool.query("UPDATE messages SET updated_at = updated_at + make_interval(secs => $2) WHERE id = $1", [message.id, Double(n)])
            }
            var reader = ConversationReader(contextMessages: 2)
            reader.maxEditedMessages = 2
            reader.editContextMessages = 0
            // The later edits may be ahead of the database's clock by up to 3 s: read them once it has passed.
            try await Task.sleep(for: .seconds(3.5))
            let read = try await Self.read(conversation, db, reader)
            #expect(read.edits.edited == Set(messages[2...3].map(\.id.postgresValue)))
            #expect(read.edits.editsOverCap == 2)
        }
    }
}
