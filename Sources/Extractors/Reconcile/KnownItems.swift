package import Core

/// The `known` part of a night's answer (docs/over-nights.md, "What a night's answer says"): one entry per open item
/// the new messages change, naming it by its short ref. Phase 2 adds this list to the response schema of a request
/// that shows open items, and decodes it here; a request without open items is unchanged.
package enum KnownItems {
    /// The answer's key for the list.
    package static let key = "known"

    /// The verdicts an entry may give.
    static let verdicts = ["changed", "cancelled", "met", "ended", "reopened"]

    /// The strict schema of the `known` list: `ref`, `verdict`, `for` (participant aliases, for met and reopened),
    /// `message_ids` (the message aliases saying so) and `changed` (for `changed`: what changed, `changeSchema`; else
    /// null). Compact on purpose: the request pays for it once per conversation with open items, so a change names the
    /// fields that changed instead of repeating every feature's item schema (`features` is kept for the callers' sake).
    package static func schema(_ features: [(feature: ExtractionFeature, schema: JSONValue)]) -> JSONValue {
        [
            "type": "array",
            "maxItems": 40,
            "description": "One entry per open item the new messages change; an item not listed stands as it is.",
            "items": [
                "type": "object",
                "additionalProperties": false,
                "required": ["ref", "verdict", "for", "message_ids", "changed"],
                "properties": [
                    "ref": ["type": "string", "description": "The open item's ref, as listed (e1, t2, ...)."],
                    "verdict": ["type": "string", "enum": .array(verdicts.map(JSONValue.string))],
                    "for": ["type": "array", "items": ["type": "string"],
                            "description": "met and reopened: the participant aliases it is met (or due again) for; else empty."],
                    "message_ids": ["type": "array", "items": ["type": "string"], "description": "The messages saying so."],
                    "changed": ["anyOf": [["type": "null"], changeSchema],
                                "description": "changed: what changed (null fields stand as listed); else null."],
                ],
            ],
        ]
    }

    /// A change of a known item: its new words, date, time, end time, place and (an RSVP) answers, each null when it
    /// stands; the messages that changed it, words quoted from one of them, and the date's words.
    static let changeSchema: JSONValue = [
        "type": "object",
        "additionalProperties": false,
        "required": ["words", "date", "time", "end_time", "location", "date_phrase", "evidence", "source_message_ids", "responses"],
        "properties": [
            "words": ["type": ["string", "null"], "description": "The new title, task, decision or event words; null: as listed."],
            "date": ["type": ["string", "null"], "format": "date", "description": "The new date, YYYY-MM-DD; null: as listed."],
            "time": ["type": ["string", "null"], "description": "The new time, HH:MM; null: as listed."],
            "end_time": ["type": ["string", "null"], "description": "The new end time, HH:MM; null: as listed."],
            "location": ["type": ["string", "null"], "description": "The new place; null: as listed."],
            "date_phrase": ["type": ["string", "null"], "description": "The words that give the new date, copied exactly; null."],
            "evidence": ["type": "string", "description": "Words copied exactly from one message cited."],
            "source_message_ids": ["type": "array", "items": ["type": "string"], "description": "The messages that changed it."],
            "responses": ["type": "array", "description": "An RSVP: the new answers.", "items": [
                "type": "object", "additionalProperties": false, "required": ["participant_id", "response", "message_id"],
                "properties": [
                    "participant_id": ["type": "string"],
                    "response": ["type": "string", "enum": ["yes", "no", "maybe"]],
                    "message_id": ["type": "string"],
                ],
            ]],
        ],
    ]

    /// The known item `current` with `change` applied, as its feature's item JSON (the window's aliases), for its
    /// feature's decoder: a field the change leaves null keeps the item's own value.
    static func applied(_ change: JSONValue, to current: ItemBody, window: MessageWindow) -> JSONValue {
        func given(_ key: String) -> JSONValue? {
            guard let value = change[key], value != .null else { return nil }
            return value
        }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let sources = change["source_message_ids"] ?? .array([])
        let evidence = change["evidence"] ?? .string("")
        let phrase = change["date_phrase"] ?? .null
        switch current {
        case .event(let e):
            return ["title": given("words") ?? .string(e.title), "date": given("date") ?? .string(e.date.iso),
                    "time": given("time") ?? text(e.time?.hourMinute), "end_time": given("end_time") ?? text(e.endTime?.hourMinute),
                    "location": given("location") ?? text(e.location), "description": .string(e.description),
                    "category": .string(e.category.rawValue), "confidence": .number(e.confidence), "date_phrase": phrase,
                    "evidence": evidence, "source_message_ids": sources]
        case .decision(let d):
            return ["decision": given("words") ?? .string(d.decision), "category": .string(d.category.rawValue),
                    "decided_by": text(d.decidedBy.flatMap { window.alias(ofParticipant: $0) }),
                    "deadline": given("date") ?? text(d.deadline?.iso), "date_phrase": phrase, "evidence": evidence, "source_message_ids": sources]
        case .rsvp(let r):
            return ["event": given("words") ?? .string(r.event), "event_date": given("date") ?? .string(r.eventDate.iso),
                    "deadline": text(r.deadline?.iso), "requested_by": text(r.requestedBy.flatMap { window.alias(ofParticipant: $0) }),
                    "date_phrase": phrase, "deadline_phrase": nil, "evidence": evidence, "source_message_ids": sources,
                    "responses": change["responses"] ?? .array([])]
        case .deadline(let t):
            return ["task": given("words") ?? .string(t.task), "deadline": given("date") ?? .string(t.deadline.iso),
                    "time": given("time") ?? text(t.time?.hourMinute), "category": .string(t.category.rawValue),
                    "priority": .string(t.priority), "details": text(t.details), "date_phrase": phrase, "evidence": evidence,
                    "source_message_ids": sources]
        case .priority(let p):
            return ["message_id": text(window.alias(ofMessage: p.messageID)), "priority": .string(p.priority),
                    "reason": .string(p.reason), "action_required": .bool(p.actionRequired), "evidence": evidence]
        }
    }

    /// The verdicts of `answer`'s `known` list, aliases turned into real ids with `window`. A changed item goes through
    /// its feature's decoder (cited ids, evidence, dates: the checks of any new item), its feature found from the ref's
    /// letter; an item the checks drop drops its verdict, noted. An alias the window does not know is kept as written,
    /// so the reconciliation refuses it (an unknown participant, a message the request did not carry).
    package static func decode(_ answer: JSONValue, registry: FeatureRegistry, window: MessageWindow, input: ConversationInput)
        -> (verdicts: [Verdict], notes: [ExtractionNote]) {
        var verdicts: [Verdict] = []
        var notes: [ExtractionNote] = []
        for (index, entry) in (answer[key]?.arrayValue ?? []).enumerated() {
            guard let ref = entry["ref"]?.stringValue, let verdict = entry["verdict"]?.stringValue else {
                notes.append(ExtractionNote(feature: .calendarEvents, kind: .dropped, message: "dropped known[\(index)]: no ref or no verdict"))
                continue
            }
            let people = Set((entry["for"]?.arrayValue ?? []).compactMap(\.stringValue).map { window.participantID(forAlias: $0) ?? $0 })
            let evidence = (entry["message_ids"]?.arrayValue ?? []).compactMap(\.stringValue).map { window.message(forAlias: $0)?.id ?? $0 }
            switch verdict {
            case "cancelled": verdicts.append(Verdict(ref: ref, .cancelled, evidence: evidence))
            case "ended": verdicts.append(Verdict(ref: ref, .ended, evidence: evidence))
            case "met": verdicts.append(Verdict(ref: ref, .met(for: people), evidence: evidence))
            case "reopened": verdicts.append(Verdict(ref: ref, .reopened(for: people), evidence: evidence))
            case "changed":
                guard let feature = feature(ofRef: ref, registry: registry), let parent = registry.feature(feature),
                      let list = itemsKey(of: parent), let changed = entry["changed"], changed.objectValue != nil,
                      let current = input.state[ref]?.body, current.feature == feature else {
                    notes.append(ExtractionNote(feature: feature(ofRef: ref, registry: registry) ?? .calendarEvents, kind: .dropped,
                                                message: "dropped known[\(index)] \(ref.prefix(10)): a change without its fields, or of no known item"))
                    continue
                }
                var context = DecodeContext(feature: feature, window: window, input: input)
                context.currentDate = current.keyDate
                context.currentItem = current
                var decoded = Extraction()
                parent.decode([list: [applied(changed, to: current, window: window)]], into: &decoded, context: &context)
                notes += context.notes
                guard let body = ItemBody.all(in: decoded).first else { continue }
                verdicts.append(Verdict(ref: ref, .changed(body), evidence: evidence))
            default:
                notes.append(ExtractionNote(feature: feature(ofRef: ref, registry: registry) ?? .calendarEvents, kind: .dropped,
                                            message: "dropped known[\(index)] \(ref.prefix(10)): '\(verdict.prefix(20))' is no verdict"))
            }
        }
        return (verdicts, notes)
    }

    /// The feature of a ref by its letter (docs/over-nights.md: e, c, r, t, p).
    static func feature(ofRef ref: String, registry: FeatureRegistry) -> ExtractionFeature? {
        let letters: [String: ExtractionFeature] = ["e": .calendarEvents, "c": .decisions, "r": .rsvps, "t": .deadlines, "p": .priorityMessages]
        return letters[String(ref.prefix { $0.isLetter })].flatMap { registry.feature($0)?.id }
    }

    /// The key of a feature's list in its answers (`events` for calendar events): the property its decoder reads.
    static func itemsKey(of parent: any Extractor) -> String? {
        switch parent.id {
        case .calendarEvents: "events"
        case .decisions: "decisions"
        case .priorityMessages: "messages"
        case .rsvps: "rsvps"
        case .deadlines: "deadlines"
        default: nil
        }
    }
}
