import Foundation

/// A chat participant as the extractors see it. `id` is the app's user id (a UUID string) or a fixture's id.
public struct Participant: Sendable, Hashable, Codable {
    public let id: String
    public let name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One message to read. Its text is untrusted: it is only ever rendered as escaped data.
public struct InputMessage: Sendable, Hashable, Codable {
    public let id: String
    public let senderID: String
    public let sentAt: Date
    public let text: String

    public init(id: String, senderID: String, sentAt: Date, text: String) {
        self.id = id
        self.senderID = senderID
        self.sentAt = sentAt
        self.text = text
    }
}

/// Everything one extraction of one conversation needs, from the database or from an eval fixture.
public struct ConversationInput: Sendable {
    public let conversationID: String
    public let name: String
    public let isGroup: Bool
    public let participants: [Participant]
    /// Oldest first.
    public let messages: [InputMessage]
    /// Messages before this index are context only (earlier history shown to the model); items may cite them,
    /// but a scan only has to find what the new messages say.
    public let firstNewIndex: Int
    /// The zone relative dates are read in (the reading user's).
    public let timeZone: TimeZone
    /// "Today" for the prompt: when the extraction runs (a fixture fixes it).
    public let now: Date
    /// Whose view the prompt takes (user_name); nil for a neutral view.
    public let viewer: Participant?

    public init(
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

    public func message(_ id: String) -> InputMessage? { messages.first { $0.id == id } }
    public func participant(_ id: String) -> Participant? { participants.first { $0.id == id } }
}
