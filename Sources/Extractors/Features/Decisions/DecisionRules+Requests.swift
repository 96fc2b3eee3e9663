import Foundation
/// Two more ways a chat settles something, besides an agreement cue:
/// - a request or proposal asked as a question ("Can you take her?", "Should we cancel it?", "Lunch Sunday at
///   12?") answered yes by someone else in the next message ("Yes, I'll take her.", "Sunday 11 is fine");
/// - a commitment to a task ("Then I'll drive to Saturday's game.", "I'll pick them up from the airport.");
/// - a short settling reply ("OK animals it is!", "Okay, both then.") to someone else's message.
/// Invitations and their answers are RSVPs, not decisions, so questions that ask who is coming are skipped.
extension DecisionRules {
    /// Words that open a yes ("yes", "sure", "deal") or say a proposal is fine ("is fine", "works").
    static let affirmativeOpenings = [
        "yes", "yeah", "yep", "yup", "sure", "no problem", "of course", "ok", "okay", "deal", "perfect", "sounds good",
        "sounds great", "will do", "got it", "absolutely", "definitely", "done", "i'll", "i will", "i can",
    ]
    static let affirmativeAnywhere = ["is fine", "are fine", "that works", "works for me", "works for us"]
    /// Questions that ask someone to act or propose a change ("can you take", "should we", "want me to").
    static let requestCues = [
        "can you", "could you", "would you", "should we", "shall i", "shall we", "want me to", "who's taking", "who is taking",
        "who can", "okay with that", "ok with that", "everyone okay", "everyone ok", "can we swap", "can we shift", "can we move",
        "can we switch", "can we change", "can we reschedule",
    ]
    /// Openings of a yes-or-no question that asks for information, not agreement.
    static let auxiliaryOpenings = ["is", "are", "do", "does", "did", "can", "could", "would", "will", "was", "were", "has", "have",
                                    "what", "when", "where", "why", "how", "which", "who", "and", "also", "so"]
    static let refusals = ["no", "sorry", "can't", "cannot", "won't", "not", "unfortunately", "nope"]
    /// Questions about coming to something: RSVPs.
    static let invitationWords = ["come", "coming", "join", "make it", "be there", "who's in", "who is in", "party", "invite"]
    /// Verbs of a task someone takes on.
    static let taskVerbs = ["drive", "take", "pick", "do", "bring", "book", "handle", "cover", "host", "organize", "organise", "make", "pay", "buy"]
    static let commitmentOpenings = ["i'll", "i will", "then i'll", "ok i'll", "okay i'll", "so i'll"]
    static let acknowledgements = ["deal", "great", "perfect", "thanks", "thank you", "awesome", "lovely", "brilliant", "amazing"]

    /// A question answered yes: the question's message and the answer's, or nil.
    static func acceptedRequest(_ answer: ScannedMessage, in scan: RuleScan) -> Decision? {
        guard answer.index > 0, let first = answer.sentences.first, !first.isQuestion else { return nil }
        let question = scan.messages[answer.index - 1]
        guard !question.isSuspicious, question.message.senderID != answer.message.senderID,
              let asked = question.sentences.last(where: \.isQuestion),
              asked.cues.first(of: invitationWords) == nil, asked.cues.first(of: RuleCues.rsvpRequest) == nil else { return nil }
        // A request ("can you take her?") or a dated proposal ("Lunch at the diner Sunday at 12?"), not a question
        // for information ("Is it overnight?").
        let proposes = asked.cues.firstPrefix(of: auxiliaryOpenings) == nil && !question.mentions(in: asked).isEmpty
        guard asked.cues.first(of: requestCues) != nil || proposes else { return nil }
        let opening = first.cues
        let agrees = opening.firstPrefix(of: affirmativeOpenings) != nil || opening.first(of: affirmativeAnywhere) != nil
        let refuses = opening.firstPrefix(of: refusals) != nil && opening.firstPrefix(of: ["no problem", "no worries"]) == nil
        guard agrees, !refuses, opening.first(of: ["can't", "cannot", "won't"]) == nil else { return nil }
        // "I'll ..." only answers a request that asks someone to act.
        if opening.firstPrefix(of: ["i'll", "i will", "i can"]) != nil, opening.first(of: taskVerbs) == nil { return nil }
        return Decision(
            text: settled(asked.text, asker: question, answerer: answer, in: scan).shortened(to: 120), category: .other,
            date: date(in: question) ?? date(in: answer), sources: [question.alias, answer.alias],
            evidence: answer.evidence(around: first.range))
    }

    /// The accepted request stated as what was settled, not as the question: "Can you take her?" answered by Maria is
    /// "Maria will take her"; "Want me to drive?" asked by Dan is "Dan will drive"; "Should we move it to 5?" is "Agreed:
    /// move it to 5"; a dated proposal ("Lunch Sunday at 12?") is "Agreed: lunch Sunday at 12".
    static func settled(_ question: String, asker: ScannedMessage, answerer: ScannedMessage, in scan: RuleScan) -> String {
        func name(_ message: ScannedMessage) -> String {
            scan.input.participant(message.message.senderID)?.name.split(separator: " ").first.map(String.init) ?? "They"
        }
        var text = question.trimmingCharacters(in: CharacterSet(charactersIn: " ?!.")).collapsedWhitespace
        // Leading words that address or soften: "Hey Maria,", "So", "Also", "Ok".
        if let comma = text.firstIndex(of: ","), text.distance(from: text.startIndex, to: comma) <= 14 {
            text = String(text[text.index(after: comma)...]).trimmingCharacters(in: .whitespaces)
        }
        for opening in ["so ", "also ", "and ", "ok ", "okay ", "then "] where text.lowercased().hasPrefix(opening) {
            text = String(text.dropFirst(opening.count))
        }
        let forms: [(String, (String) -> String)] = [
            ("can you please ", { "\(name(answerer)) will \($0)" }), ("could you please ", { "\(name(answerer)) will \($0)" }),
            ("can you ", { "\(name(answerer)) will \($0)" }), ("could you ", { "\(name(answerer)) will \($0)" }),
            ("would you ", { "\(name(answerer)) will \($0)" }), ("who can ", { "\(name(answerer)) will \($0)" }),
            ("who's taking ", { "\(name(answerer)) is taking \($0)" }), ("who is taking ", { "\(name(answerer)) is taking \($0)" }),
            ("want me to ", { "\(name(asker)) will \($0)" }), ("shall i ", { "\(name(asker)) will \($0)" }),
            ("should we ", { "Agreed: \($0)" }), ("shall we ", { "Agreed: \($0)" }), ("can we ", { "Agreed: \($0)" }),
        ]
        let lower = text.lowercased()
        for (opening, statement) in forms where lower.hasPrefix(opening) {
            let rest = String(text.dropFirst(opening.count))
            return statement(rest.replacingOccurrences(of: " for me", with: " for \(name(asker))"))
        }
        return "Agreed: " + (text.first.map { $0.lowercased() + text.dropFirst() } ?? text)
    }

    /// "Then I'll drive to Saturday's game.": the message, and the next one when it only acknowledges it.
    static func commitment(_ message: ScannedMessage, in scan: RuleScan) -> Decision? {
        guard let sentence = message.sentences.first(where: { sentence in
            !sentence.isQuestion && sentence.cues.firstPrefix(of: commitmentOpenings) != nil
                && sentence.cues.words.prefix(4).contains { taskVerbs.contains($0) }
                && sentence.cues.first(of: invitationWords) == nil
        }) else { return nil }
        // "Yes! I'll pick her up at 5." after an invitation is an RSVP answer.
        if message.index > 0, case let previous = scan.messages[message.index - 1],
           previous.cues.first(of: invitationWords) != nil || previous.cues.first(of: RuleCues.rsvpRequest) != nil { return nil }
        var sources = [message.alias]
        if message.index + 1 < scan.messages.count, case let next = scan.messages[message.index + 1],
           next.message.senderID != message.message.senderID, next.cues.firstPrefix(of: acknowledgements) != nil {
            sources.append(next.alias)
        }
        return Decision(text: sentence.text.shortened(to: 120), category: .other, date: date(in: message), sources: sources,
                        evidence: message.evidence(around: sentence.range), isCommitment: true)
    }

    /// "OK animals it is!", "Okay, both then.": a short reply ending in "it is" or "then" settles the message before
    /// it (someone else's). "See you then" only says goodbye.
    static func settled(_ message: ScannedMessage, in scan: RuleScan) -> Decision? {
        guard message.index > 0, let first = message.sentences.first, !first.isQuestion else { return nil }
        let cues = first.cues
        let endsSettled = (cues.hasSuffix("it is") && cues.words.count <= 6)
            || (cues.hasSuffix("then") && cues.words.count <= 4 && cues.first(of: ["see", "talk", "bye", "speak", "until", "chat"]) == nil)
        let previous = scan.messages[message.index - 1]
        guard endsSettled, !previous.isSuspicious, previous.message.senderID != message.message.senderID else { return nil }
        return Decision(text: first.text.shortened(to: 120), category: .other, date: date(in: message) ?? date(in: previous),
                        sources: [previous.alias, message.alias], evidence: message.evidence(around: first.range))
    }
}
