import Core
import Foundation

/// Calendar events: a sentence naming an event ("field trip", "soccer game", "dentist appointment") with a
/// date that is not already over. A later "cancelled" removes it; "moved to <date>" replaces its date.
enum CalendarEventRules {
    struct Event {
        var key: String
        var title: String
        var mention: DateMention
        /// A bare time said elsewhere in the sentence ("Saturday March 14 ... starts at 2pm").
        var extraTime: LocalTime?
        var location: String?
        var category: EventCategory
        var description: String
        var sources: [String]
        var sourceTexts: [String]
        /// The sentence that names the event (or its new date), verbatim.
        var evidence: String

        /// 0.6 for a named event with a date, plus 0.1 for each of: a time, a place, a day (not just a clock time).
        var confidence: Double {
            let cues = [mention.time != nil || extraTime != nil, location != nil, !mention.isTimeOnly].filter { $0 }.count
            return Double(6 + cues) / 10
        }

        var json: JSONValue {
            .object([
                "title": .string(title),
                "date": .string(mention.date.iso),
                "time": RuleJSON.time(mention.time ?? extraTime),
                "end_time": RuleJSON.time(mention.endTime),
                "location": location.map(JSONValue.string) ?? .null,
                "description": .string(description),
                "category": .string(category.rawValue),
                "confidence": .number(confidence),
                "date_phrase": .string(mention.phrase),
                "evidence": .string(evidence),
                "source_message_ids": .array(sources.map(JSONValue.string)),
            ])
        }
    }

    static let medicalWords = [
        "dentist", "dental", "doctor", "dr", "pediatrician", "orthodontist", "checkup", "check-up", "vaccine", "shots",
        "clinic", "allergist", "therapist", "physical", "eye", "medical",
    ]
    static let schoolWords = ["school", "teacher", "class", "pta", "pto", "principal", "classroom", "grade"]

    static func answer(_ scan: RuleScan) -> JSONValue {
        var events: [Event] = []
        for message in scan.messages where !message.isSuspicious {
            if let cue = message.cues.first(of: RuleCues.move) {
                move(message, cue: cue, events: &events)
            } else if message.cues.first(of: RuleCues.cancellation) != nil {
                cancel(message, events: &events)
            } else if let found = event(in: message) {
                if let index = events.firstIndex(where: { $0.key == found.key && $0.mention.date == found.mention.date }) {
                    // The same event said again: one item, citing both.
                    events[index].sources.append(message.alias)
                } else {
                    events.append(found)
                }
            }
        }
        return .object(["events": .array(events.map(\.json))])
    }

    /// The first sentence (not a question) that names an event and an upcoming date.
    static func event(in message: ScannedMessage) -> Event? {
        for sentence in message.sentences where !sentence.isQuestion {
            guard let noun = EventVocabulary.match(in: sentence) else { continue }
            let mentions = message.mentions(in: sentence).filter { !$0.isDeadline && $0.date >= message.sentDay }
            guard let mention = mentions.first(where: { !$0.isTimeOnly }) ?? mentions.first else { continue }
            let extraTime = mention.time == nil ? mentions.first(where: \.isTimeOnly)?.time : nil
            return Event(
                key: noun.key, title: noun.title, mention: mention, extraTime: extraTime,
                location: EventVocabulary.location(in: sentence),
                category: category(noun, message: message), description: message.text.shortened(to: 200),
                sources: [message.alias], sourceTexts: [message.text], evidence: message.evidence(around: sentence.range))
        }
        return nil
    }

    static func category(_ noun: EventNounMatch, message: ScannedMessage) -> EventCategory {
        if noun.key == "appointment" && message.cues.first(of: medicalWords) == nil { return .other }
        if noun.category == .other && message.cues.first(of: schoolWords) != nil { return .school }
        return noun.category
    }

    /// "Practice is moved to Thursday": the event (named here, or the latest one) on the new date only.
    static func move(_ message: ScannedMessage, cue: String, events: inout [Event]) {
        let cueWords = RuleTokenizer.words(cue)
        let words = message.tokens.filter(\.isWord)
        guard let start = EventVocabulary.find(cueWords, in: words) else { return }
        let cueEnd = words[start + cueWords.count - 1].range.upperBound
        guard let mention = message.upcomingMentions.first(where: { $0.range.lowerBound >= cueEnd && !$0.isDeadline }),
              let sentence = message.sentence(containing: mention) else { return }
        let noun = message.sentences.lazy.compactMap(EventVocabulary.match(in:)).first
        let priorIndex = noun.map { noun in events.lastIndex { $0.key == noun.key } } ?? events.indices.last
        let prior = priorIndex.map { events[$0] }
        guard let key = noun?.key ?? prior?.key, let title = prior?.title ?? noun?.title else { return }
        if let priorIndex { events.remove(at: priorIndex) }
        // Cite the earlier message too, unless it also contains the new date words (the decoder reads the
        // phrase in the first cited message that contains it).
        let keepsPrior = prior.map { !$0.sourceTexts.contains { $0.lowercased().contains(mention.phrase.lowercased()) } } ?? false
        events.append(Event(
            key: key, title: title, mention: mention, extraTime: nil,
            location: EventVocabulary.location(in: sentence) ?? prior?.location,
            category: noun.map { category($0, message: message) } ?? prior?.category ?? .other,
            description: message.text.shortened(to: 200),
            sources: (keepsPrior ? prior?.sources ?? [] : []) + [message.alias],
            sourceTexts: (keepsPrior ? prior?.sourceTexts ?? [] : []) + [message.text],
            evidence: message.evidence(around: sentence.range)))
    }

    /// "Practice Thursday is cancelled": drops the event it names (on the dates it gives), or the latest one.
    static func cancel(_ message: ScannedMessage, events: inout [Event]) {
        let noun = message.sentences.lazy.compactMap(EventVocabulary.match(in:)).first
        let dates = Set(message.upcomingMentions.filter { !$0.isTimeOnly }.map(\.date))
        if let noun {
            events.removeAll { $0.key == noun.key && (dates.isEmpty || dates.contains($0.mention.date)) }
        } else if !dates.isEmpty {
            events.removeAll { dates.contains($0.mention.date) }
        } else if !events.isEmpty {
            events.removeLast()
        }
    }
}

/// Small JSON helpers shared by the rule files.
enum RuleJSON {
    static func time(_ time: LocalTime?) -> JSONValue {
        guard let time else { return .null }
        return .string(time.hourMinute)
    }

    static func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// The longest `evidence` the rules quote (the schemas allow 500).
    static let evidenceLimit = 300
}
