import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Bench workload generator")
struct WorkloadGeneratorTests {
    static let spec = WorkloadSpec(conversations: 60, days: 5, seed: 42, now: ScanHarness.now)

    @Test func theSameSeedGivesTheSameWorkloadAndAnotherSeedAnotherOne() throws {
        let one = try WorkloadGenerator.make(Self.spec)
        #expect(try WorkloadGenerator.make(Self.spec) == one)
        var other = Self.spec
        other.seed = 43
        let different = try WorkloadGenerator.make(other)
        #expect(different.messages.map(\.text) != one.messages.map(\.text))
        #expect(Set(different.conversations.map(\.id)).isDisjoint(with: one.conversations.map(\.id)))
    }

    @Test func conversationsHaveRealisticShapes() throws {
        let workload = try WorkloadGenerator.make(Self.spec)
        let users = Set(workload.users.map(\.id))
        #expect(workload.conversations.count == 60)
        #expect(Set(workload.conversations.map(\.name)).count == 60)
        #expect(workload.conversations.contains { $0.isGroup } && workload.conversations.contains { !$0.isGroup })
        for conversation in workload.conversations {
            let size = conversation.participantIDs.count
            #expect(conversation.isGroup ? (3...8).contains(size) : size == 2, "\(conversation.name) has \(size) people")
            #expect(Set(conversation.participantIDs).count == size)
            #expect(Set(conversation.participantIDs).isSubset(of: users))
        }
        let members = Dictionary(uniqueKeysWithValues: workload.conversations.map { ($0.id, Set($0.participantIDs)) })
        #expect(workload.messages.allSatisfy { members[$0.conversationID]?.contains($0.senderID) == true })
        #expect(workload.messages.allSatisfy { $0.sentAt <= ScanHarness.now && $0.sentAt > ScanHarness.now.addingTimeInterval(-5 * 86_400) })
    }

    @Test func aboutATenthIsActiveOnTheLastDayWithAboutTwentyMessages() throws {
        let workload = try WorkloadGenerator.make(Self.spec)
        #expect(workload.activeConversations == 6)
        for conversation in workload.conversations {
            let fresh = workload.messages.count { $0.conversationID == conversation.id && $0.sentAt >= workload.lastDayStart }
            if conversation.isActive {
                #expect((16...24).contains(fresh), "\(conversation.name): \(fresh) new messages")
            } else {
                #expect(fresh == 0, "\(conversation.name) is quiet but has \(fresh) new messages")
            }
        }
    }

    @Test func messagesCarryDatesTimesRSVPsAndDeadlines() throws {
        let texts = try WorkloadGenerator.make(Self.spec).messages.map(\.text)
        let months = ["January", "February", "March", "April", "May", "June"]
        #expect(texts.contains { text in months.contains { text.contains($0) } })
        #expect(texts.contains { $0.contains("RSVP by") })
        #expect(texts.contains { $0.contains("due") || $0.contains(" by ") })
        #expect(texts.contains { $0.range(of: #"\d{1,2}(:\d\d)?(am|pm)"#, options: .regularExpression) != nil })
        #expect(Set(texts).count > texts.count / 4, "texts should vary")
    }

    @Test func watermarksMarkEverythingBeforeTheLastDayAsScanned() throws {
        let workload = try WorkloadGenerator.make(Self.spec)
        #expect(workload.watermarks.count == 60)
        for watermark in workload.watermarks {
            let earlier = workload.messages.filter { $0.conversationID == watermark.conversationID && $0.sentAt < workload.lastDayStart }
            #expect(earlier.last?.id == watermark.messageID)
            #expect(earlier.last?.sentAt == watermark.sentAt)
        }
    }

    @Test func badSpecsAreRefusedWithTheOptionName() {
        #expect(throws: WorkloadGenerator.InvalidSpec.self) { try WorkloadGenerator.make(WorkloadSpec(conversations: 0, days: 3, now: Date())) }
        do {
            _ = try WorkloadGenerator.make(WorkloadSpec(conversations: 10, days: 0, now: Date()))
            Issue.record("days 0 was accepted")
        } catch {
            #expect("\(error)".contains("--days"))
        }
    }

    @Test func loadingMakesExactlyTheLastDayPendingAndLoadingAgainAddsNothing() async throws {
        try await TestDatabase.with { db in
            let workload = try WorkloadGenerator.make(Self.spec)
            let report = try await WorkloadLoader(pool: db.pool, batchSize: 100).load(workload)
            #expect(report.messages == workload.messages.count)
            let counts = try await db.pool.query(
                "SELECT (SELECT count(*) FROM messages) AS m, (SELECT count(*) FROM conversation_participants) AS p, (SELECT count(*) FROM users) AS u")[0]
            #expect(try counts.decode("m", as: Int.self) == workload.messages.count)
            #expect(try counts.decode("p", as: Int.self) == report.participants)
            #expect(try counts.decode("u", as: Int.self) == workload.users.count)

            _ = try await WorkloadLoader(pool: db.pool).load(workload)
            #expect(try await db.pool.query("SELECT count(*) AS n FROM messages")[0].decode("n", as: Int.self) == workload.messages.count)

            // What a scan will see as new: exactly the active conversations and their last-day messages.
            let pending = try await db.pool.query(
                """
                SELECT m.conversation_id, count(*) AS n FROM messages m JOIN scan_watermarks w USING (conversation_id)
                WHERE (messageai_utc(m.created_at), m.id) > (w.last_message_at, w.last_message_id) GROUP BY m.conversation_id
                """)
            let pendingIDs: Set<UUID> = Set(try pending.map { try $0.decode("conversation_id") })
            #expect(pendingIDs == Set(workload.conversations.filter(\.isActive).map(\.id)))
            #expect(try pending.reduce(0) { $0 + (try $1.decode("n", as: Int.self)) } == workload.newMessages)
        }
    }
}
