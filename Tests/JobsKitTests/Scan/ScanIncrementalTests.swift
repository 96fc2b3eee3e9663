import Foundation
import Core
import Extractors
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Scan: only what is new is sent")
struct ScanIncrementalTests {
    @Test func aSecondScanWithNothingNewSendsNoRequest() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 8, active: 3)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)

            let first = try await ScanHarness.scan(db, engine)
            #expect(first.conversations == 3)
            #expect(first.failed == 0)
            let afterFirst = server.requests.count
            #expect(afterFirst == 3 * 5)

            let second = try await ScanHarness.scan(db, engine)
            #expect(second.conversations == 0)
            #expect(second.requests == 0)
            #expect(server.requests.count == afterFirst)
        }
    }

    @Test func oneNewMessageSendsThatConversationOnlyWithItsContextWindow() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 8, active: 3)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            _ = try await ScanHarness.scan(db, engine)
            let before = server.requests.count

            // A quiet conversation (history only) with at least three earlier messages gets one new message.
            let target = try #require(workload.conversations.first { conversation in
                !conversation.isActive && workload.messages.count { $0.conversationID == conversation.id } >= 3
            })
            let newText = "Can someone take Emma to practice on Friday at 5pm?"
            try await db.pool.query(
                "INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, $5)",
                [UUID(), target.id, target.participantIDs[0], newText, ScanHarness.now.addingTimeInterval(60)])
            let expectedContext: [String] = try await db.pool.query(
                """
                SELECT content FROM messages WHERE conversation_id = $1 AND content <> $2
                ORDER BY created_at DESC, id DESC LIMIT 3
                """, [target.id, newText]).map { try $0.decode("content", as: String.self) }.reversed()

            let summary = try await ScanHarness.scan(db, engine, ScanHarness.options(contextMessages: 3))
            #expect(summary.conversations == 1)
            #expect(summary.newMessages == 1)
            let sent = Array(server.requests.dropFirst(before))
            #expect(sent.count == FeatureRegistry.shipping.ids.count)
            #expect(Set(sent.map(ScanRequests.feature)) == Set(FeatureRegistry.shipping.ids.map(\.rawValue)))
            for request in sent {
                #expect(ScanRequests.conversation(request) == target.name)
                let texts = ScanRequests.messageLines(request).map { $0["text"]?.stringValue ?? "" }
                #expect(texts == expectedContext + [newText], "feature \(ScanRequests.feature(request))")
            }
        }
    }
}
