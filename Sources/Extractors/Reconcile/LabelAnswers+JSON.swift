package import Core

/// `--provider labels` through the engine (docs/over-nights.md, "Eval over nights"): the night's answer written from
/// the labels (`LabelAnswers.answer`) as the JSON a perfect model would send for one request, in each feature's item
/// shape with the window's aliases, the `known` list beside it. The engine then decodes it like any model's answer
/// (cited ids, evidence, dates), so the pipeline's losses over nights include the decode step's.
extension LabelAnswers {
    /// The combined answer for `features` over `window`: one property per feature, and `known` when `listsKnown`
    /// (the request listed open items). Items and verdicts citing no message of the window are left out: a model
    /// could not cite them either.
    package static func json(_ answer: NightAnswer, features: [ExtractionFeature], window: MessageWindow, listsKnown: Bool) -> JSONValue {
        var object = JSONObject()
        for feature in features {
            let items = answer.newItems.map(\.body).filter { $0.feature == feature }.compactMap { item($0, window: window) }
            if let key = listKey[feature] { object[feature.rawValue] = [key: .array(items)] }
        }
        if listsKnown {
            object[KnownItems.key] = .array(answer.verdicts.filter { verdict in
                features.contains { $0 == refFeature(verdict.ref) }
            }.compactMap { verdict($0, window: window) })
        }
        return .object(object)
    }

    /// Each feature's list in its answers (as `KnownItems.itemsKey`).
    static let listKey: [ExtractionFeature: String] = [
        .calendarEvents: "events", .decisions: "decisions", .priorityMessages: "messages", .rsvps: "rsvps", .deadlines: "deadlines",
    ]

    static func refFeature(_ ref: String) -> ExtractionFeature? {
        let letters: [String: ExtractionFeature] = ["e": .calendarEvents, "c": .decisions, "r": .rsvps, "t": .deadlines, "p": .priorityMessages]
        return letters[String(ref.prefix { $0.isLetter })]
    }

    static func verdict(_ verdict: Verdict, window: MessageWindow) -> JSONValue? {
        let messages = verdict.evidence.compactMap { window.alias(ofMessage: $0) }.map(JSONValue.string)
        func entry(_ name: String, for people: Set<String> = [], changed: JSONValue = .null) -> JSONValue {
            ["ref": .string(verdict.ref), "verdict": .string(name),
             "for": .array(people.sorted().map { .string(window.alias(ofParticipant: $0) ?? $0) }),
             "message_ids": .array(messages), "changed": changed]
        }
        switch verdict.kind {
        case .changed(let body):
            guard let changed = change(body, window: window) else { return nil }
            return entry("changed", changed: changed)
        case .cancelled: return entry("cancelled")
        case .met(let people): return entry("met", for: people)
        case .ended: return entry("ended")
        case .reopened(let people): return entry("reopened", for: people)
        }
    }

    /// One item in its feature's schema shape, citing its sources the window holds (nil when it holds none), its
    /// evidence a quote of the first of them (the one that introduced it, as a model quotes an invitation), its date
    /// phrase left out (the labels' date is the answer's).
    static func item(_ body: ItemBody, window: MessageWindow) -> JSONValue? {
        let cited = body.sources.filter { window.alias(ofMessage: $0) != nil }
        guard let first = cited.first, let message = window.messages.first(where: { $0.id == first }) else { return nil }
        let ids = JSONValue.array(cited.compactMap { window.alias(ofMessage: $0) }.map(JSONValue.string))
        let evidence = JSONValue.string(quote(message.text))
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        switch body {
        case .event(let e):
            return ["title": .string(e.title), "date": .string(e.date.iso), "time": text(e.time?.hourMinute), "end_time": text(e.endTime?.hourMinute),
                    "location": text(e.location), "description": .string(e.description), "category": .string(e.category.rawValue),
                    "confidence": .number(e.confidence), "date_phrase": nil, "evidence": evidence, "source_message_ids": ids]
        case .decision(let d):
            return ["decision": .string(d.decision), "category": .string(d.category.rawValue),
                    "decided_by": text(d.decidedBy.flatMap { window.alias(ofParticipant: $0) }), "deadline": text(d.deadline?.iso),
                    "date_phrase": nil, "evidence": evidence, "source_message_ids": ids]
        case .rsvp(let r):
            let responses: [JSONValue] = r.responses.compactMap { reply in
                guard let who = window.alias(ofParticipant: reply.participantID), let said = window.alias(ofMessage: reply.messageID) else { return nil }
                return ["participant_id": .string(who), "response": .string(reply.response), "message_id": .string(said)]
            }
            return ["event": .string(r.event), "event_date": .string(r.eventDate.iso), "deadline": text(r.deadline?.iso),
                    "requested_by": text(r.requestedBy.flatMap { window.alias(ofParticipant: $0) }), "date_phrase": nil,
                    "deadline_phrase": nil, "evidence": evidence, "source_message_ids": ids, "responses": .array(responses)]
        case .deadline(let t):
            return ["task": .string(t.task), "deadline": .string(t.deadline.iso), "time": text(t.time?.hourMinute),
                    "category": .string(t.category.rawValue), "priority": .string(t.priority), "details": text(t.details),
                    "date_phrase": nil, "evidence": evidence, "source_message_ids": ids]
        case .priority(let p):
            return ["message_id": .string(window.alias(ofMessage: p.messageID) ?? ""), "priority": .string(p.priority),
                    "reason": .string(p.reason), "action_required": .bool(p.actionRequired), "evidence": evidence]
        }
    }

    /// A known item's change (`KnownItems.changeSchema`): its fields as they now are, citing its sources the window
    /// holds (nil when it holds none).
    static func change(_ body: ItemBody, window: MessageWindow) -> JSONValue? {
        guard let item = item(body, window: window) else { return nil }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var change: JSONObject = ["words": .string(body.words), "date": text(body.keyDate?.iso), "time": nil, "end_time": nil,
                                  "location": nil, "date_phrase": nil, "evidence": item["evidence"] ?? "",
                                  "source_message_ids": item["source_message_ids"] ?? [], "responses": item["responses"] ?? []]
        if body.words.isEmpty { change["words"] = nil }
        switch body {
        case .event(let e): (change["time"], change["end_time"], change["location"]) = (text(e.time?.hourMinute), text(e.endTime?.hourMinute), text(e.location))
        case .deadline(let t): change["time"] = text(t.time?.hourMinute)
        case .decision, .rsvp, .priority: break
        }
        return .object(change)
    }

    /// Words copied from a message: all of it up to 300 characters, else its first sentence (cut at 300).
    static func quote(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count <= 300 { return trimmed }
        let end = trimmed.firstIndex { ".!?\n".contains($0) }.map { trimmed.index(after: $0) } ?? trimmed.endIndex
        return String(trimmed[..<end].prefix(300))
    }
}
