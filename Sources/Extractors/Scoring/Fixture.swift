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
    /// A chat read over several nights (docs/nights-format.md), nil for a one-night fixture. For a nights fixture
    /// `messages` are every night's, `expected` and `reference.now` the last night's.
    package var nights: [FixtureNight]? = nil

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
        case id, description, reference, participants, messages, expected, nights
    }

    /// A one-night fixture as written, or a nights fixture (`nights:` instead of `messages:`/`expected:`, and a
    /// `reference` without `now`).
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        description = try c.decode(String.self, forKey: .description)
        participants = try c.decode([FixtureParticipant].self, forKey: .participants)
        if let nights = try c.decodeIfPresent([FixtureNight].self, forKey: .nights), let last = nights.last {
            let reference = try c.decode(NightsReference.self, forKey: .reference)
            self.reference = FixtureReference(now: last.now, timezone: reference.timezone, user: reference.user)
            self.nights = nights
            messages = nights.flatMap(\.messages)
            expected = last.expected
        } else {
            reference = try c.decode(FixtureReference.self, forKey: .reference)
            messages = try c.decode([FixtureMessage].self, forKey: .messages)
            expected = try c.decode(ExtractionSet.self, forKey: .expected)
        }
    }

    /// Written as it was read: one-night fixtures with `messages`/`expected`, nights fixtures with `nights`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(description, forKey: .description)
        try c.encode(participants, forKey: .participants)
        if let nights {
            try c.encode(NightsReference(timezone: reference.timezone, user: reference.user), forKey: .reference)
            try c.encode(nights, forKey: .nights)
        } else {
            try c.encode(reference, forKey: .reference)
            try c.encode(messages, forKey: .messages)
            try c.encode(expected, forKey: .expected)
        }
    }

    /// Each night as a one-night fixture of its own, `<id>#<n>` (n from 1): the messages of that night and the ones
    /// before, that night's `now` and labels. A one-night fixture is its own only night.
    package var nightFixtures: [Fixture] {
        guard let nights else { return [self] }
        var messages: [FixtureMessage] = []
        return nights.enumerated().map { index, night in
            messages += night.messages
            var reference = reference
            reference.now = night.now
            return Fixture(id: Self.nightID(id, index + 1), description: description, reference: reference,
                           participants: participants, messages: messages, expected: night.expected, unlabelled: unlabelled)
        }
    }

    /// The id of night `number` (from 1) of fixture `id` in scores and reports.
    package static func nightID(_ id: String, _ number: Int) -> String { "\(id)#\(number)" }
}

/// One night of a nights fixture: when the scan runs, the messages sent since the previous night, and what the app
/// shows the reference user right after it.
package struct FixtureNight: Sendable, Hashable, Codable {
    package var now: Timestamp
    package var messages: [FixtureMessage]
    package var expected: ExtractionSet

    package init(now: Timestamp, messages: [FixtureMessage], expected: ExtractionSet) {
        self.now = now
        self.messages = messages
        self.expected = expected
    }
}

/// A nights fixture's `reference`: each night has its own `now`.
private struct NightsReference: Codable {
    var timezone: String
    var user: String
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
