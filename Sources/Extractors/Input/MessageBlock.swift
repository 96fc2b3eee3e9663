import Core
package import Foundation

/// The compact text of a window's messages, as the model reads it inside `<messages>`:
///
///     people: p1 "Maria Lopez", p2 "Dan Kim"
///     ## Mon 2026-03-02
///     m1 08:14 p2 "Practice moved to Thursday 5:30pm"
///
/// Senders are named once, in the legend; a day header stands before each day's first message, so no line repeats
/// the date or weekday; each message is one line of alias, local 24-hour time, sender alias and the text. Text and
/// names are JSON strings with `<` and `>` escaped too, so no message (and no display name) can break its line,
/// close the `<messages>` block or pose as a header: every line the model reads as structure is written by code.
/// About 12 bytes around each text, against about 110 for one JSON object per message.
package enum MessageBlock {
    /// One message line read back.
    package struct Line: Sendable, Hashable {
        package let alias: String
        /// The day header above it, YYYY-MM-DD.
        package let day: String
        /// HH:MM, local.
        package let time: String
        package let senderAlias: String
        package let text: String

        package init(alias: String, day: String, time: String, senderAlias: String, text: String) {
            self.alias = alias
            self.day = day
            self.time = time
            self.senderAlias = senderAlias
            self.text = text
        }
    }

    package static func render(_ window: MessageWindow, participants: [Participant], timeZone: TimeZone) -> String {
        let names = Dictionary(participants.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var senders: [(alias: String, name: String)] = []
        var seen: Set<String> = []
        for message in window.messages where seen.insert(message.senderID).inserted {
            senders.append((window.alias(ofParticipant: message.senderID) ?? unknownSender, names[message.senderID] ?? "Unknown"))
        }
        senders.sort { aliasOrder($0.alias) < aliasOrder($1.alias) }
        var lines = ["people: " + senders.map { "\($0.alias) \(quoted($0.name))" }.joined(separator: ", ")]
        var currentDay: LocalDate?
        for message in window.messages {
            let day = LocalDate(message.sentAt, in: timeZone)
            if day != currentDay {
                lines.append("## \(day.weekdayName.prefix(3)) \(day.iso)")
                currentDay = day
            }
            let alias = window.alias(ofMessage: message.id) ?? "?"
            let sender = window.alias(ofParticipant: message.senderID) ?? unknownSender
            lines.append("\(alias) \(clock(message.sentAt, in: timeZone)) \(sender) \(quoted(message.text))")
        }
        return lines.joined(separator: "\n")
    }

    /// The alias of a sender who is not a participant of the conversation.
    static let unknownSender = "p?"

    /// The message lines of a rendered block (legend and headers skipped); nil for a line that is neither.
    package static func parse(_ block: String) -> [Line]? {
        var day = ""
        var result: [Line] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("people: ") { continue }
            if line.hasPrefix("## ") {
                day = String(line.split(separator: " ").last ?? "")
                continue
            }
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4,
                  let text = try? JSONValue.parse(Data(unescapeAngles(String(parts[3])).utf8)).stringValue else { return nil }
            result.append(Line(alias: String(parts[0]), day: day, time: String(parts[1]), senderAlias: String(parts[2]), text: text))
        }
        return result
    }

    static func quoted(_ text: String) -> String { MessageWindow.escapeAngles(JSONValue.string(text).serialized()) }

    static func unescapeAngles(_ text: String) -> String {
        text.replacingOccurrences(of: "\\u003c", with: "<").replacingOccurrences(of: "\\u003e", with: ">")
    }

    /// "08:14" in the zone, from the zone's offset at that instant.
    static func clock(_ date: Date, in timeZone: TimeZone) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        let seconds = ((local % 86_400) + 86_400) % 86_400
        let hour = seconds / 3600, minute = seconds % 3600 / 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    private static func aliasOrder(_ alias: String) -> Int { Int(alias.dropFirst()) ?? Int.max }
}
