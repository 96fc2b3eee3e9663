import Core

/// RSVPs: a message asking for answers ("RSVP", "who's coming", "can you make it") about an upcoming date,
/// and the answers other participants give in later messages (until the next request), latest per person.
enum RSVPRules {
    enum Reply: String { case yes, no, maybe }

    static func answer(_ scan: RuleScan) -> JSONValue {
        let messages = scan.messages.filter { !$0.isSuspicious }
        let requestIndices = messages.indices.filter { messages[$0].cues.first(of: RuleCues.rsvpRequest) != nil }
        var items: [JSONValue] = []
        for (position, index) in requestIndices.enumerated() {
            let request = messages[index]
            guard let (eventMention, deadline) = dates(of: request) else { continue }
            let next = position + 1 < requestIndices.count ? requestIndices[position + 1] : messages.endIndex
            let replies = messages[(index + 1)..<next].filter { $0.message.senderID != request.message.senderID }
            var responses: [(participant: String, reply: Reply, message: String)] = []
            for message in replies {
                guard let participant = message.senderAlias, let reply = classify(message.cues) else { continue }
                responses.removeAll { $0.participant == participant }
                responses.append((participant, reply, message.alias))
            }
            items.append(.object([
                "event": .string(event(request, mention: eventMention)),
                "event_date": .string(eventMention.date.iso),
                "deadline": RuleJSON.string(deadline?.date.iso),
                "requested_by": RuleJSON.string(request.senderAlias),
                "date_phrase": .string(eventMention.phrase),
                "deadline_phrase": RuleJSON.string(deadline?.phrase),
                "evidence": .string(request.evidence(around: eventMention.range)),
                "source_message_ids": .array([.string(request.alias)]),
                "responses": .array(responses.map { response in
                    .object([
                        "participant_id": .string(response.participant),
                        "response": .string(response.reply.rawValue),
                        "message_id": .string(response.message),
                    ])
                }),
            ]))
        }
        return .object(["rsvps": .array(items)])
    }

    /// The event's date (the first upcoming date that is not the answer deadline) and the answer deadline.
    static func dates(of request: ScannedMessage) -> (event: DateMention, deadline: DateMention?)? {
        var event: DateMention?
        var deadline: DateMention?
        for mention in request.upcomingMentions {
            guard let sentence = request.sentence(containing: mention) else { continue }
            if DeadlineRules.isRSVPDeadline(mention, sentence: sentence, message: request) {
                if deadline == nil { deadline = mention }
            } else if event == nil, !mention.isDeadline {
                event = mention
            }
        }
        guard let event else { return nil }
        return (event, deadline)
    }

    /// The event's name from an event noun, else the words of the sentence with its date.
    static func event(_ request: ScannedMessage, mention: DateMention) -> String {
        if let noun = request.sentences.lazy.compactMap(EventVocabulary.match(in:)).first { return noun.title }
        let sentence = request.sentence(containing: mention)?.text ?? request.text
        return sentence.shortened(to: 60)
    }

    /// Strong phrases first ("can't make it" before "make it"), then a yes/no opening word, then a hedge.
    static func classify(_ cues: CueText) -> Reply? {
        if cues.first(of: RuleCues.replyNo) != nil { return .no }
        if cues.first(of: RuleCues.replyMaybe) != nil { return .maybe }
        if cues.first(of: RuleCues.replyYes) != nil { return .yes }
        if cues.firstPrefix(of: RuleCues.replyYesOpening) != nil { return .yes }
        if cues.firstPrefix(of: RuleCues.replyNoOpening) != nil { return .no }
        if cues.first(of: RuleCues.replyMaybeAnywhere) != nil { return .maybe }
        return nil
    }
}
