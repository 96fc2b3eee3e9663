import Chrono
import JSONKit

/// Turns a schema-valid answer (aliases, model dates) into items with real ids, checked evidence and code-checked dates.
/// Every item must quote `evidence` from a message it cites (see `DecodeContext.ground`).
enum FeatureDecoders {
    static func decode(_ answer: JSONValue, into extraction: inout Extraction, context: inout DecodeContext) {
        let answer = answer.withoutNULs
        switch context.feature {
        case .calendarEvents: extraction.events += events(answer, &context)
        case .decisions: extraction.decisions += decisions(answer, &context)
        case .priorityMessages: extraction.priorities += priorities(answer, &context)
        case .rsvps: extraction.rsvps += rsvps(answer, &context)
        case .deadlines: extraction.deadlines += deadlines(answer, &context)
        }
    }

    private static func items(_ answer: JSONValue, _ key: String) -> [JSONValue] { answer[key]?.arrayValue ?? [] }

    static func events(_ answer: JSONValue, _ context: inout DecodeContext) -> [EventItem] {
        items(answer, "events").enumerated().compactMap { index, item in
            let label = "event \(index) '\(item["title"]?.stringValue?.prefix(40) ?? "")'"
            guard let cited = context.sources(item["source_message_ids"], item: label),
                  let (sources, holder) = context.ground(item["evidence"]?.stringValue, sources: cited, item: label),
                  let modelDate = context.date(item["date"], field: "date", item: label) ?? nil else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            let resolved = context.resolve(phrase: phrase, modelDate: modelDate, sources: sources, evidenceMessage: holder, item: label)
            return EventItem(
                title: item["title"]?.nonEmptyString ?? "Event",
                date: resolved.date,
                time: resolved.time ?? item["time"]?.stringValue.flatMap { LocalTime(iso: $0) },
                endTime: resolved.endTime ?? item["end_time"]?.stringValue.flatMap { LocalTime(iso: $0) },
                location: item["location"]?.nonEmptyString,
                description: item["description"]?.stringValue ?? "",
                category: item["category"]?.stringValue ?? "other",
                confidence: min(1, max(0, item["confidence"]?.doubleValue ?? 0.5)),
                datePhrase: phrase, modelDate: resolved.modelDate, sources: sources)
        }
    }

    static func decisions(_ answer: JSONValue, _ context: inout DecodeContext) -> [DecisionItem] {
        items(answer, "decisions").enumerated().compactMap { index, item in
            let label = "decision \(index) '\(item["decision"]?.stringValue?.prefix(40) ?? "")'"
            guard let cited = context.sources(item["source_message_ids"], item: label),
                  let (sources, holder) = context.ground(item["evidence"]?.stringValue, sources: cited, item: label),
                  let modelDeadline = context.date(item["deadline"], field: "deadline", item: label) else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            var deadline = modelDeadline
            var modelDate: LocalDate?
            if let given = modelDeadline {
                let resolved = context.resolve(phrase: phrase, modelDate: given, sources: sources, evidenceMessage: holder,
                                               item: label, deadline: true)
                deadline = resolved.date
                modelDate = resolved.modelDate
            }
            return DecisionItem(
                decision: item["decision"]?.nonEmptyString ?? "",
                category: item["category"]?.stringValue ?? "other",
                decidedBy: context.participant(item["decided_by"]),
                deadline: deadline, datePhrase: phrase, modelDate: modelDate, sources: sources)
        }
    }

    static func priorities(_ answer: JSONValue, _ context: inout DecodeContext) -> [PriorityItem] {
        var seen: Set<String> = []
        return items(answer, "messages").enumerated().compactMap { index, item in
            let label = "priority message \(index)"
            guard let cited = context.sources(item["message_id"].map { .array([$0]) }, item: label),
                  let (ids, _) = context.ground(item["evidence"]?.stringValue, sources: cited, item: label), let id = ids.first,
                  seen.insert(id).inserted else { return nil }
            return PriorityItem(
                messageID: id,
                priority: item["priority"]?.stringValue ?? "medium",
                reason: item["reason"]?.stringValue ?? "",
                actionRequired: item["action_required"]?.boolValue ?? false)
        }
    }

    static func rsvps(_ answer: JSONValue, _ context: inout DecodeContext) -> [RSVPItem] {
        items(answer, "rsvps").enumerated().compactMap { index, item in
            let label = "rsvp \(index) '\(item["event"]?.stringValue?.prefix(40) ?? "")'"
            guard let cited = context.sources(item["source_message_ids"], item: label),
                  let (sources, holder) = context.ground(item["evidence"]?.stringValue, sources: cited, item: label),
                  let modelDate = context.date(item["event_date"], field: "event_date", item: label) ?? nil,
                  let modelDeadline = context.date(item["deadline"], field: "deadline", item: label) else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            let resolved = context.resolve(phrase: phrase, modelDate: modelDate, sources: sources, evidenceMessage: holder, item: label)
            var deadline = modelDeadline
            if let given = modelDeadline {
                deadline = context.resolve(
                    phrase: item["deadline_phrase"]?.nonEmptyString, modelDate: given, sources: sources, evidenceMessage: holder,
                    item: label + " deadline", deadline: true).date
            }
            var responses: [RSVPResponse] = []
            for answer in item["responses"]?.arrayValue ?? [] {
                guard let who = context.participant(answer["participant_id"]),
                      let alias = answer["message_id"]?.stringValue, let message = context.window.message(forAlias: alias),
                      let response = answer["response"]?.stringValue else {
                    context.note(.dropped, "\(label): dropped an answer naming an unknown participant or message")
                    continue
                }
                responses.removeAll { $0.participantID == who }
                responses.append(RSVPResponse(participantID: who, response: response, messageID: message.id))
            }
            return RSVPItem(
                event: item["event"]?.nonEmptyString ?? "Event",
                eventDate: resolved.date, deadline: deadline,
                requestedBy: context.participant(item["requested_by"]) ?? sources.first.flatMap { context.input.message($0)?.senderID },
                datePhrase: phrase, modelDate: resolved.modelDate, sources: sources, responses: responses)
        }
    }

    static func deadlines(_ answer: JSONValue, _ context: inout DecodeContext) -> [DeadlineItem] {
        items(answer, "deadlines").enumerated().compactMap { index, item in
            let label = "deadline \(index) '\(item["task"]?.stringValue?.prefix(40) ?? "")'"
            guard let cited = context.sources(item["source_message_ids"], item: label),
                  let (sources, holder) = context.ground(item["evidence"]?.stringValue, sources: cited, item: label),
                  let modelDate = context.date(item["deadline"], field: "deadline", item: label) ?? nil else { return nil }
            let phrase = item["date_phrase"]?.nonEmptyString
            let resolved = context.resolve(phrase: phrase, modelDate: modelDate, sources: sources, evidenceMessage: holder,
                                           item: label, deadline: true)
            return DeadlineItem(
                task: item["task"]?.nonEmptyString ?? "Task",
                deadline: resolved.date,
                time: resolved.time ?? item["time"]?.stringValue.flatMap { LocalTime(iso: $0) },
                category: item["category"]?.stringValue ?? "other",
                priority: item["priority"]?.stringValue ?? "medium",
                details: item["details"]?.nonEmptyString,
                datePhrase: phrase, modelDate: resolved.modelDate, sources: sources)
        }
    }
}
