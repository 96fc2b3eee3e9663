import Extractors
import Foundation
import Core

/// A conversation input frozen as JSON when its requests are rendered, so collect decodes the answers' aliases
/// against exactly the messages that were sent, even if the conversation changed meanwhile.
struct BatchInputSnapshot: Codable, Sendable {
    var conversationID: String
    var name: String
    var isGroup: Bool
    var participants: [Participant]
    /// Instants are stored as `Date`'s own number, which JSON round-trips exactly.
    var messages: [InputMessage]
    var firstNewIndex: Int
    var timeZone: String
    var now: Date
    var viewer: Participant?
    /// The tracked items the requests were built from (the open ones listed) and the messages deleted since the last
    /// night; absent in snapshots written before items were tracked.
    var state: [StoredTrackedItem]?
    var deletedMessageIDs: [String]?

    init(_ input: ConversationInput) {
        conversationID = input.conversationID
        name = input.name
        isGroup = input.isGroup
        participants = input.participants
        messages = input.messages
        firstNewIndex = input.firstNewIndex
        timeZone = input.timeZone.identifier
        now = input.now
        viewer = input.viewer
        state = input.state.items.isEmpty ? nil : input.state.stored
        deletedMessageIDs = input.deletedMessageIDs.isEmpty ? nil : input.deletedMessageIDs.sorted()
    }

    func json() throws -> JSONValue { try JSONValue.encode(self) }

    static func decode(_ json: JSONValue, conversation: UUID) throws -> ConversationInput {
        let snapshot: BatchInputSnapshot
        do {
            snapshot = try json.decode(BatchInputSnapshot.self)
        } catch {
            throw JobsError.invalidRecord("llm_batch_conversations.input of conversation \(conversation.uuidString.lowercased()) is not a valid snapshot: \(error)")
        }
        guard let zone = TimeZone(identifier: snapshot.timeZone) else {
            throw JobsError.invalidRecord("llm_batch_conversations.input of conversation \(conversation.uuidString.lowercased()): unknown time zone '\(snapshot.timeZone)'")
        }
        var input = ConversationInput(
            conversationID: snapshot.conversationID, name: snapshot.name, isGroup: snapshot.isGroup, participants: snapshot.participants,
            messages: snapshot.messages, firstNewIndex: snapshot.firstNewIndex, timeZone: zone, now: snapshot.now, viewer: snapshot.viewer)
        input.state = ConversationState(stored: snapshot.state ?? [])
        input.deletedMessageIDs = Set(snapshot.deletedMessageIDs ?? [])
        return input
    }
}
