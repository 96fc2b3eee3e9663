package import Foundation

/// A chat participant as the extractors see it. `id` is the app's user id (a UUID string) or a fixture's id.
package struct Participant: Sendable, Hashable, Codable {
    package let id: String
    package let name: String

    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One message to read. Its text is untrusted: it is only ever rendered as escaped data.
package struct InputMessage: Sendable, Hashable, Codable {
    package let id: String
    package let senderID: String
    package let sentAt: Date
    package let text: String

    package init(id: String, senderID: String, sentAt: Date, text: String) {
        self.id = id
        self.senderID = senderID
        self.sentAt = sentAt
        self.text = text
    }
}

/// Everything one extraction of one conversation needs, from the database or from an eval fixture.
package struct ConversationInput: Sendable {
    package let conversationID: String
    package let name: String
    package let isGroup: Bool
    package let participants: [Participant]
    /// Oldest first.
    package let messages: [InputMessage]
    /// Messages before this index are context only (earlier history shown to the model); items may cite them,
    /// but a scan only has to find what the new messages say.
    package let firstNewIndex: Int
    /// The zone relative dates are read in (the reading user's).
    package let timeZone: TimeZone
    /// "Today" for the prompt: when the extraction runs (a fixture fixes it).
    package let now: Date
    /// Whose view the prompt takes (user_name); nil for a neutral view.
    package let viewer: Participant?
    /// The conversation's items from earlier nights (docs/over-nights.md); the request lists its open ones. Empty for
    /// a first night, `extract` over the whole chat, and every one-night fixture.
    package var state = ConversationState()
    /// Messages soft-deleted since the last scan: items resting only on them close (`notBacked`).
    package var deletedMessageIDs: Set<String> = []

    package init(
        conversationID: String, name: String, isGroup: Bool, participants: [Participant], messages: [InputMessage],
        firstNewIndex: Int = 0, timeZone: TimeZone, now: Date, viewer: Participant? = nil
    ) {
        self.conversationID = conversationID
        self.name = name
        self.isGroup = isGroup
        self.participants = participants
        self.messages = messages.sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }
        self.firstNewIndex = min(max(0, firstNewIndex), messages.count)
        self.timeZone = timeZone
        self.now = now
        self.viewer = viewer
    }

    package func message(_ id: String) -> InputMessage? { messages.first { $0.id == id } }
    package func participant(_ id: String) -> Participant? { participants.first { $0.id == id } }
}
