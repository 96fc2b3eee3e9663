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
    /// `message_ids` (the message aliases saying so) and `changed` (for `changed`: the item as it now is, in its
    /// feature's item schema; else null). `features`: each feature's output schema, whose one array property holds its items.
    package static func schema(_ features: [(feature: ExtractionFeature, schema: JSONValue)]) -> JSONValue {
        let items = features.compactMap { itemSchema($0.schema) }
        return [
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
                    "changed": ["anyOf": .array([["type": "null"]] + items),
                                "description": "changed: the item as it now is, in its list's item shape; else null."],
                ],
            ],
        ]
    }

    /// The item schema of a feature's output schema (`{"properties": {"<list>": {"items": …}}}`), nil when it has another shape.
    static func itemSchema(_ schema: JSONValue) -> JSONValue? {
        guard let lists = schema["properties"]?.objectValue, lists.keys.count == 1, let key = lists.keys.first else { return nil }
        return lists[key]?["items"]
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
                      let list = itemsKey(of: parent), let changed = entry["changed"], changed != .null else {
                    notes.append(ExtractionNote(feature: feature(ofRef: ref, registry: registry) ?? .calendarEvents, kind: .dropped,
                                                message: "dropped known[\(index)] \(ref.prefix(10)): a change without its item, or of no feature"))
                    continue
                }
                var context = DecodeContext(feature: feature, window: window, input: input)
                context.currentDate = input.state[ref]?.body.keyDate
                context.currentItem = input.state[ref]?.body
                var decoded = Extraction()
                parent.decode([list: [changed]], into: &decoded, context: &context)
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
    static func itemsKey(of parent: any ParentFeature) -> String? {
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
