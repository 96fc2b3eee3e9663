import Foundation

/// A generated benchmark data set: users, conversations, their messages, and where a scan starts in each.
public struct Workload: Sendable, Hashable {
    public struct User: Sendable, Hashable {
        public let id: UUID
        public let username: String
        public let displayName: String
        public let timeZone: String
    }

    public struct Conversation: Sendable, Hashable {
        public let id: UUID
        /// Numbered, so requests and reports can be told apart by name.
        public let name: String
        public let isGroup: Bool
        public let participantIDs: [UUID]
        /// Has new messages on the last day.
        public let isActive: Bool
    }

    public struct Message: Sendable, Hashable {
        public let id: UUID
        public let conversationID: UUID
        public let senderID: UUID
        public let text: String
        public let sentAt: Date
    }

    /// The last message before the last day: everything up to it counts as already scanned.
    public struct Watermark: Sendable, Hashable {
        public let conversationID: UUID
        public let sentAt: Date
        public let messageID: UUID
    }

    public let spec: WorkloadSpec
    public let users: [User]
    public let conversations: [Conversation]
    /// Per conversation, oldest first.
    public let messages: [Message]
    /// Conversations with no message before the last day have none (a scan reads all they have).
    public let watermarks: [Watermark]
    /// Messages at or after this instant are the last day's, the ones a scan sees as new.
    public let lastDayStart: Date

    public var activeConversations: Int { conversations.count(where: \.isActive) }
    public var newMessages: Int { messages.count(where: { $0.sentAt >= lastDayStart }) }
}

/// What to generate. The same spec (seed and `now` included) always gives the same workload.
public struct WorkloadSpec: Sendable, Hashable, Codable {
    public var conversations: Int
    public var days: Int
    public var seed: UInt64
    /// The end of the last day.
    public var now: Date
    /// Share of group chats; the rest are 1:1.
    public var groupShare = 0.75
    /// Share of conversations with new messages on the last day (at least one when there are any conversations).
    public var activeShare = 0.1
    /// New messages in an active conversation on the last day, about.
    public var newMessagesPerActive = 20

    public init(conversations: Int, days: Int, seed: UInt64 = 1, now: Date) {
        self.conversations = conversations
        self.days = days
        self.seed = seed
        self.now = now
    }
}
