import Chrono
import JSONKit

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
            return Flag(priority: "urgent", reason: "Says \"\(cue)\": needs attention right away.", cue: cue)
        }
        if let cue = cues.first(of: RuleCues.high) {
            return Flag(priority: "high", reason: "Says \"\(cue)\": plans or a child's health may change.", cue: cue)
        }
        if let cue = cues.first(of: RuleCues.sameDay), asksForAction(message) || message.sentences.contains(where: { EventVocabulary.match(in: $0) != nil }) {
            return Flag(priority: "urgent", reason: "About \(cue): happens or is needed the same day.", cue: cue)
        }
        return nil
    }

    /// Asks the reader to do or answer something.
    static func asksForAction(_ message: ScannedMessage) -> Bool {
        if message.cues.first(of: RuleCues.action) != nil { return true }
        return message.sentences.contains { $0.isQuestion && $0.cues.first(of: ["you", "anyone", "someone", "everyone"]) != nil }
    }
}
