import Core
import PromptKit

/// The conversation's open items in a request, and the `known` list of its answer (docs/over-nights.md, phase 2).
/// A request lists the open items of `input.state` (its features' only, the `ConversationState.shownCap` most recent)
/// and its response schema gains `known` only when it lists any: a request for a conversation with no open items is
/// byte for byte what it was before open items existed.
extension ExtractionEngine {
    /// The open items a request for `features` lists: in combined mode one request lists every feature's, in the
    /// per-feature mode each feature's request lists its own (so the union is capped per feature).
    func shownItems(_ input: ConversationInput, features: [ExtractionFeature]) -> [TrackedItem] {
        if mode == .combined, features.count > 1 { return input.state.shownItems(features: Set(features)) }
        return registry.sorted(features).flatMap { input.state.shownItems(features: [$0]) }
    }

    /// The refs a request for `features` showed: what `NightRequest.shownRefs` must hold for the reconciliation.
    package func shownRefs(_ input: ConversationInput, features: [ExtractionFeature]) -> Set<String> {
        Set(shownItems(input, features: features).map(\.ref))
    }

    /// The `open_items` variable for a request of `features` over `window`: empty (the section is not rendered) when
    /// the conversation has none of theirs open.
    static func openItemsValue(_ input: ConversationInput, window: MessageWindow, features: Set<ExtractionFeature>) -> String {
        let items = input.state.shownItems(features: features)
        guard !items.isEmpty else { return "" }
        return ConversationState.openItemsBlock(items, participant: { window.alias(ofParticipant: $0) },
                                                message: { window.alias(ofMessage: $0) })
    }

    /// `schema` (a feature's, or the combined one) with the `known` list of `features`' items added, required.
    func withKnown(_ schema: JSONValue, features: [ExtractionFeature]) throws -> JSONValue {
        let parts = try registry.sorted(features).map { (feature: $0, schema: try prompt(for: $0).outputSchema ?? .object([:])) }
        guard var object = schema.objectValue, var properties = object["properties"]?.objectValue else { return schema }
        properties[KnownItems.key] = KnownItems.schema(parts)
        object["properties"] = .object(properties)
        object["required"] = .array((object["required"]?.arrayValue ?? []) + [.string(KnownItems.key)])
        return .object(object)
    }

    /// The verdicts of one window's answer (its `known` list), for a request that listed `shown`: an entry naming a ref
    /// of a feature the request was not for is dropped and noted (the per-feature mode); anything else goes to
    /// `KnownItems.decode`, whose refusals are item by item.
    static func decodeKnown(_ answer: JSONValue, registry: FeatureRegistry, window: MessageWindow, input: ConversationInput,
                            features: Set<ExtractionFeature>) -> (verdicts: [Verdict], notes: [ExtractionNote]) {
        guard let list = answer[KnownItems.key], list != .null else { return ([], []) }
        let first = features.sorted { $0.rawValue < $1.rawValue }.first ?? .calendarEvents
        guard let entries = list.arrayValue else {
            return ([], [ExtractionNote(feature: first, kind: .dropped, message: "dropped the known list: it is not a list")])
        }
        var kept: [JSONValue] = []
        var notes: [ExtractionNote] = []
        for (index, entry) in entries.enumerated() {
            let ref = entry["ref"]?.stringValue ?? ""
            if let feature = KnownItems.feature(ofRef: ref, registry: registry), !features.contains(feature) {
                notes.append(ExtractionNote(feature: first, kind: .dropped,
                                            message: "dropped known[\(index)] \(ref.prefix(10)): an item of \(feature.rawValue), which this request was not for"))
                continue
            }
            kept.append(entry)
        }
        let decoded = KnownItems.decode([KnownItems.key: .array(kept)], registry: registry, window: window, input: input)
        return (decoded.verdicts, notes + decoded.notes)
    }

    /// Verdicts of several windows: a later window's verdict of one kind on a ref replaces an earlier one's (its
    /// messages are later), so one extraction says one thing of each item.
    static func mergeKnown(_ earlier: [Verdict], _ later: [Verdict]) -> [Verdict] {
        func slot(_ verdict: Verdict) -> String {
            if case .reopened = verdict.kind { return verdict.ref + "/reopened" }
            return verdict.ref
        }
        let replaced = Set(later.map(slot))
        return earlier.filter { !replaced.contains(slot($0)) } + later
    }
}

extension KnownItems {
    /// `answer` without its `known` list, and whether it had one: the feature's own schema and decoder read the rest.
    static func split(_ answer: JSONValue) -> (rest: JSONValue, known: JSONValue?) {
        guard var object = answer.objectValue, let known = object[key] else { return (answer, nil) }
        object[key] = nil
        return (.object(object), known)
    }
}
