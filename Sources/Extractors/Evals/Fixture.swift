/// One labelled chat: the messages an extractor reads and the items it should find in them.
package struct Fixture: Sendable, Hashable, Codable {
    package var id: String
    package var description: String
    package var reference: FixtureReference
    package var participants: [FixtureParticipant]
    package var messages: [FixtureMessage]
    package var expected: ExtractionSet
    /// The scored features this fixture has no list for: not labelled for them, so their predictions count in no
    /// number (an empty list, by contrast, says the chat has nothing of that feature). Set by the loader from the
    /// `expected` block's keys; a fixture written before a feature existed needs no edit when it is registered.
    package var unlabelled: Set<ExtractionFeature> = []

    package init(id: String, description: String, reference: FixtureReference, participants: [FixtureParticipant],
                messages: [FixtureMessage], expected: ExtractionSet, unlabelled: Set<ExtractionFeature> = []) {
        self.id = id
        self.description = description
        self.reference = reference
        self.participants = participants
        self.messages = messages
        self.expected = expected
        self.unlabelled = unlabelled
    }

    /// Whether the fixture labels `feature` (has a list for it, empty or not).
    package func labels(_ feature: ExtractionFeature) -> Bool { !unlabelled.contains(feature) }

    enum CodingKeys: String, CodingKey {
        case id, description, reference, participants, messages, expected
    }
}

/// The point of view the chat is read from: relative dates resolve in `timezone`, RSVP status is `user`'s.
package struct FixtureReference: Sendable, Hashable, Codable {
    package var now: Timestamp
    /// An IANA time zone identifier (`America/New_York`); the loader checks it is known.
    package var timezone: String
    /// Participant id of the person the assistant works for.
    package var user: String

    package init(now: Timestamp, timezone: String, user: String) {
        self.now = now
        self.timezone = timezone
        self.user = user
    }
}

package struct FixtureParticipant: Sendable, Hashable, Codable {
    package var id: String
    package var name: String

    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

package struct FixtureMessage: Sendable, Hashable, Codable {
    package var id: String
    /// Participant id.
    package var sender: String
    package var sentAt: Timestamp
    package var text: String

    package init(id: String, sender: String, sentAt: Timestamp, text: String) {
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
