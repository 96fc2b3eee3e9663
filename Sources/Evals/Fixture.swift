/// One labelled chat: the messages an extractor reads and the items it should find in them.
public struct Fixture: Sendable, Hashable, Codable {
    public var id: String
    public var description: String
    public var reference: FixtureReference
    public var participants: [Participant]
    public var messages: [ChatMessage]
    public var expected: ExtractionSet

    public init(id: String, description: String, reference: FixtureReference, participants: [Participant],
                messages: [ChatMessage], expected: ExtractionSet) {
        self.id = id
        self.description = description
        self.reference = reference
        self.participants = participants
        self.messages = messages
        self.expected = expected
    }
}

/// The point of view the chat is read from: relative dates resolve in `timezone`, RSVP status is `user`'s.
public struct FixtureReference: Sendable, Hashable, Codable {
    public var now: Timestamp
    /// An IANA time zone identifier (`America/New_York`); the loader checks it is known.
    public var timezone: String
    /// Participant id of the person the assistant works for.
    public var user: String

    public init(now: Timestamp, timezone: String, user: String) {
        self.now = now
        self.timezone = timezone
        self.user = user
    }
}

public struct Participant: Sendable, Hashable, Codable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

public struct ChatMessage: Sendable, Hashable, Codable {
    public var id: String
    /// Participant id.
    public var sender: String
    public var sentAt: Timestamp
    public var text: String

    public init(id: String, sender: String, sentAt: Timestamp, text: String) {
        self.id = id
        self.sender = sender
        self.sentAt = sentAt
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case id, sender, text
        case sentAt = "sent_at"
    }
}
