package import Foundation

/// A generated benchmark data set: users, conversations, their messages, and where a scan starts in each.
package struct Workload: Sendable, Hashable {
    package struct User: Sendable, Hashable {
        package let id: UUID
        package let username: String
        package let displayName: String
        package let timeZone: String
    }

    package struct Conversation: Sendable, Hashable {
        package let id: UUID
        /// Numbered, so requests and reports can be told apart by name.
        package let name: String
        package let isGroup: Bool
        package let participantIDs: [UUID]
        /// Has new messages on the last day.
        package let isActive: Bool
    }

    package struct Message: Sendable, Hashable {
        package let id: UUID
        package let conversationID: UUID
        package let senderID: UUID
        package let text: String
        package let sentAt: Date
    }

    /// The last message before the last day: everything up to it counts as already scanned.
    package struct Watermark: Sendable, Hashable {
        package let conversationID: UUID
        package let sentAt: Date
        package let messageID: UUID
    }

    package let spec: WorkloadSpec
    package let users: [User]
    package let conversations: [Conversation]
    /// Per conversation, oldest first.
    package let messages: [Message]
    /// Conversations with no message before the last day have none (a scan reads all they have).
    package let watermarks: [Watermark]
    /// Messages at or after this instant are the last day's, the ones a scan sees as new.
    package let lastDayStart: Date

    package var activeConversations: Int { conversations.count(where: \.isActive) }
    package var newMessages: Int { messages.count(where: { $0.sentAt >= lastDayStart }) }
}

/// What to generate. The same spec (seed and `now` included) always gives the same workload.
package struct WorkloadSpec: Sendable, Hashable, Codable {
    package var conversations: Int
    package var days: Int
    package var seed: UInt64
    /// The end of the last day.
    package var now: Date
    /// Share of group chats; the rest are 1:1.
    package var groupShare = 0.75
    /// Share of conversations with new messages on the last day (at least one when there are any conversations).
    package var activeShare = 0.1
    /// New messages in an active conversation on the last day, about.
    package var newMessagesPerActive = 20

    package init(conversations: Int, days: Int, seed: UInt64 = 1, now: Date) {
        self.conversations = conversations
        self.days = days
        self.seed = seed
        self.now = now
    }
}
