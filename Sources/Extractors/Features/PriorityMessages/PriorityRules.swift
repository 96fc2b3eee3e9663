import Foundation
import Core

/// Priority messages: urgency cues ("urgent", "early dismissal", "snow day") → urgent; disruptions, changed plans and
/// illness ("cancelled", "change of plans", "fever") → high. RSVP requests and questions to the group are not
/// flagged: the RSVP tracker and the events carry them, and the labels leave them out.
/// The reader's own messages and messages whose dates are all past are left out.
enum PriorityRules {
    struct Flag {
        let priority: String
        let reason: String
        /// The cue the flag rests on; its sentence is the evidence.
        var cue: String? = nil
    }

    static func answer(_ scan: RuleScan) -> JSONValue {
        let today = LocalDate(scan.input.now, in: scan.input.timeZone)
        var items: [JSONValue] = []
        for message in scan.messages where !message.isSuspicious && message.message.senderID != scan.input.viewer?.id {
            let isStale = !message.mentions.isEmpty && message.mentions.allSatisfy { $0.date < today }
            guard !isStale, let flag = flag(message) else { continue }
            items.append(.object([
                "message_id": .string(message.alias),
                "priority": .string(flag.priority),
                "reason": .string(flag.reason),
                "action_required": .bool(asksForAction(message)),
                "evidence": .string(message.evidence(containingCue: flag.cue)),
            ]))
        }
        return .object(["messages": .array(items)])
    }

    static func flag(_ message: ScannedMessage) -> Flag? {
        let cues = message.cues
        if let cue = cues.first(of: RuleCues.urgent) {
            return Flag(priority: "urgent", reason: reason(message, cue: cue, otherwise: "act today"), cue: cue)
        }
        if let cue = cues.first(of: RuleCues.high) {
            return Flag(priority: "high", reason: reason(message, cue: cue, otherwise: "plans may change"), cue: cue)
        }
        if let cue = cues.first(of: RuleCues.sameDay), asksForAction(message) || message.sentences.contains(where: { EventVocabulary.match(in: $0) != nil }) {
            return Flag(priority: "urgent", reason: reason(message, cue: cue, otherwise: "it is today"), cue: cue)
        }
        return nil
    }

    /// Why, in the parent's words: what happens (the cue's sentence without its "URGENT:" label or its "because ..."),
    /// then what to do, from the message's request ("Please arrange pickup." → "arrange pickup"), else `otherwise`.
    /// "URGENT: early dismissal tomorrow at 12:30 because of a repair. Please arrange pickup." gives "Early dismissal
    /// tomorrow at 12:30: arrange pickup".
    static func reason(_ message: ScannedMessage, cue: String, otherwise: String) -> String {
        let sentence = message.sentences.first { $0.cues.contains(cue) } ?? message.sentences.first
        var what = sentence?.text ?? message.text
        var request: String?
        // "please ..." in the cue's own sentence is the request; what comes before it is what happens.
        if let please = what.range(of: "please ", options: .caseInsensitive) {
            request = Self.asked(String(what[please.upperBound...]))
            what = String(what[..<please.lowerBound])
        }
        let labels = ["urgent", "asap", "important", "reminder", "fyi", "heads up", "update", "attention", "alert"]
        while let label = labels.first(where: { what.lowercased().hasPrefix($0) }),
              what.dropFirst(label.count).first.map({ !$0.isLetter }) ?? true {
            what = String(what.dropFirst(label.count)).trimmingCharacters(in: CharacterSet(charactersIn: " :!-–—,.").union(.whitespaces))
        }
        for cut in [" because", " due to", " since ", " so ", " as a result"] {
            if let range = what.range(of: cut, options: .caseInsensitive) { what = String(what[..<range.lowerBound]) }
        }
        what = what.trimmingCharacters(in: CharacterSet(charactersIn: " .!?,;:")).shortened(to: 80).capitalizedFirst
        if what.isEmpty { what = cue.capitalizedFirst }
        if request == nil {
            request = message.sentences.lazy.filter { $0.range != sentence?.range }.compactMap { candidate in
                candidate.text.range(of: "please ", options: .caseInsensitive).flatMap { Self.asked(String(candidate.text[$0.upperBound...])) }
            }.first
        }
        return "\(what): \(request ?? otherwise)"
    }

    /// The words after "please", without end punctuation; nil when nothing is left.
    private static func asked(_ text: String) -> String? {
        let asked = text.trimmingCharacters(in: CharacterSet(charactersIn: " .!?"))
        return asked.isEmpty ? nil : asked.shortened(to: 60)
    }

    /// Asks the reader to do or answer something.
    static func asksForAction(_ message: ScannedMessage) -> Bool {
        if message.cues.first(of: RuleCues.action) != nil { return true }
        return message.sentences.contains { $0.isQuestion && $0.cues.first(of: ["you", "anyone", "someone", "everyone"]) != nil }
    }
}
