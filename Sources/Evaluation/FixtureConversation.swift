package import Extractors
import Foundation

/// Turns a labelled fixture into the input production extraction reads, so an eval exercises the same code.
package enum FixtureConversation {
    /// Ids are the fixture's own (messages `m1`, participants `maria`), so predictions cite what labels cite.
    /// The conversation gets a neutral name, never the fixture id: an id such as `injection-ignore-rules` would tell a
    /// model what the labels expect. "today" and the zone come from `reference`.
    package static func input(_ fixture: Fixture) throws -> ConversationInput {
        guard let timeZone = TimeZone(identifier: fixture.reference.timezone) else {
            throw EvalRunError(.invalidFixture, "fixture '\(fixture.id)': reference.timezone '\(fixture.reference.timezone)' is not a known time zone")
        }
        let participants = fixture.participants.map { Extractors.Participant(id: $0.id, name: $0.name) }
        let messages = fixture.messages.map {
            InputMessage(id: $0.id, senderID: $0.sender, sentAt: $0.sentAt.date, text: $0.text)
        }
        return ConversationInput(
            conversationID: fixture.id, name: neutralName(participants, user: fixture.reference.user), isGroup: participants.count > 2,
            participants: participants, messages: messages, firstNewIndex: 0,
            timeZone: timeZone, now: fixture.reference.now.date,
            viewer: participants.first { $0.id == fixture.reference.user })
    }

    /// "Parents group" for a group chat, "Chat with <name>" for two people, as an app would title them.
    static func neutralName(_ participants: [Extractors.Participant], user: String) -> String {
        guard participants.count == 2, let other = participants.first(where: { $0.id != user }) else { return "Parents group" }
        return "Chat with \(other.name)"
    }
}
