import Core
package import Foundation

/// A slice of a conversation rendered for the model, with short aliases ("m3", "p2") in place of real ids.
///
/// Aliases keep prompts small and make a cited id checkable: an alias the window did not show is a
/// hallucination. Message text is JSON-escaped, with `<` and `>` escaped too, so no message can close the
/// `<messages>` block or pose as a new section.
package struct MessageWindow: Sendable {
    package let messages: [InputMessage]
    let messageAliases: [String: String]     // real id -> alias
    let participantAliases: [String: String] // real id -> alias
    private let messageByAlias: [String: InputMessage]
    private let participantByAlias: [String: String]

    package init(messages: [InputMessage], participants: [Participant]) {
        self.messages = messages
        var messageAliases: [String: String] = [:]
        var messageByAlias: [String: InputMessage] = [:]
        for (index, message) in messages.enumerated() {
            let alias = "m\(index + 1)"
            messageAliases[message.id] = alias
            messageByAlias[alias] = message
        }
        var participantAliases: [String: String] = [:]
        var participantByAlias: [String: String] = [:]
        for (index, participant) in participants.enumerated() {
            let alias = "p\(index + 1)"
            participantAliases[participant.id] = alias
            participantByAlias[alias] = participant.id
        }
        self.messageAliases = messageAliases
        self.participantAliases = participantAliases
        self.messageByAlias = messageByAlias
        self.participantByAlias = participantByAlias
    }

    /// The message a cited alias stands for, nil when the model made it up.
    package func message(forAlias alias: String) -> InputMessage? { messageByAlias[alias.trimmingCharacters(in: .whitespaces)] }

    /// The participant id an alias stands for.
    package func participantID(forAlias alias: String) -> String? { participantByAlias[alias.trimmingCharacters(in: .whitespaces)] }

    package func alias(ofMessage id: String) -> String? { messageAliases[id] }
    package func alias(ofParticipant id: String) -> String? { participantAliases[id] }

    /// The compact block (`MessageBlock`): a legend of senders, day headers, one line per message with alias, local
    /// time, sender alias and the text as an escaped JSON string.
    package func renderMessages(participants: [Participant], timeZone: TimeZone) -> String {
        MessageBlock.render(self, participants: participants, timeZone: timeZone)
    }

    /// "p1 Maria Lopez, p2 Dan Kim".
    package func renderParticipants(_ participants: [Participant]) -> String {
        participants.map { "\(participantAliases[$0.id] ?? "?") \(Self.escapeAngles($0.name))" }.joined(separator: ", ")
    }

    /// Each `<` and `>` that is a character of its own written as `\u003c` / `\u003e` (one followed by a combining
    /// mark is another character and stays, as with Foundation's `replacingOccurrences`, which this replaces: it
    /// bridged every rendered line through NSString). Text without either byte is returned as it is.
    package static func escapeAngles(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 12)
        for character in text {
            switch character {
            case "<": result += "\\u003c"
            case ">": result += "\\u003e"
            default: result.append(character)
            }
        }
        return result
    }
}
