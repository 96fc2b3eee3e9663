import Core
import Extractors
import Foundation

/// The noise modes that change a whole answer rather than one field: misquoted evidence, invented items and
/// reworded repeats.
extension OracleWriter {
    /// The feature's answer with this writer's noise, and how many items were invented.
    func noisyAnswer(_ feature: ExtractionFeature) throws -> (JSONValue, invented: Int) {
        let answer = try answer(feature)
        guard [.misquote, .invented, .repeated, .merge, .inventedQuoted].contains(noise), let object = answer.objectValue,
              let (key, value) = object.first(where: { _ in true }), let items = value.arrayValue else { return (answer, 0) }
        var out: [JSONValue] = []
        var added: [JSONValue] = []
        for item in items {
            guard var fields = item.objectValue else { out.append(item); continue }
            let quote = fields["evidence"]?.stringValue ?? ""
            switch noise {
            case .misquote:
                fields["evidence"] = .string(OracleMisquote.misquote(quote, start: Self.stableHash(fixture.id + quote)))
                out.append(.object(fields))
            case .invented:
                out.append(item)
                if let twin = invented(fields, feature: feature, seed: Self.stableHash(fixture.id + quote) &+ added.count) {
                    added.append(.object(twin))
                }
            case .repeated:
                out.append(item)
                added.append(.object(reworded(fields, quote: quote)))
            case .merge:
                fields["evidence"] = .string(runOn(quote))
                out.append(.object(fields))
            case .inventedQuoted:
                out.append(item)
                if let twin = madeUp(fields, feature: feature, seed: Self.stableHash(fixture.id + quote) &+ added.count) {
                    added.append(.object(twin))
                }
            default:
                out.append(item)
            }
        }
        var result = JSONObject()
        result[key] = .array(out + added)
        return (.object(result), [.invented, .inventedQuoted].contains(noise) ? added.count : 0)
    }

    /// Another item of the same feature that is in no message: a quote from another conversation (never verbatim in
    /// this one), citing a real message of the window that is not one the item cites, nine days later. Nil when the
    /// window has no such message or no such sentence.
    private func invented(_ fields: JSONObject, feature: ExtractionFeature, seed: Int) -> JSONObject? {
        let texts = fixture.messages.map { $0.text.lowercased() }
        let candidates = sentences.filter { sentence in !texts.contains { $0.contains(sentence.lowercased()) } }
        guard !candidates.isEmpty else { return nil }
        let cited = Set((fields["source_message_ids"]?.arrayValue ?? [fields["message_id"] ?? .null]).compactMap(\.stringValue))
        let priority = Set(fixture.expected.priorityMessages.compactMap { window.alias(ofMessage: $0.message) })
        let others = window.messages.compactMap { window.alias(ofMessage: $0.id) }.filter { !cited.contains($0) && !priority.contains($0) }
        guard !others.isEmpty else { return nil }
        var twin = fields
        twin["evidence"] = .string(candidates[seed % candidates.count])
        let alias = JSONValue.string(others[(seed / 7) % others.count])
        if twin["message_id"] != nil { twin["message_id"] = alias } else { twin["source_message_ids"] = [alias] }
        for key in ["date", "event_date", "deadline"] {
            if let text = twin[key]?.stringValue, let day = LocalDate(iso: text) { twin[key] = .string(day.adding(days: 9).iso) }
        }
        for key in ["date_phrase", "deadline_phrase"] where twin[key] != nil { twin[key] = .null }
        for key in ["title", "decision", "task", "event"] {
            if let text = twin[key]?.stringValue { twin[key] = .string("Also " + text.lowercased()) }
        }
        return twin
    }

    /// `quote` run on into the next window message's first sentence (or, for the last message, the previous message's
    /// last sentence run on into it): what a model writes when one item's facts are two messages.
    private func runOn(_ quote: String) -> String {
        guard let index = window.messages.firstIndex(where: { $0.text.contains(quote) }) else { return quote }
        if index + 1 < window.messages.count, let next = Self.sentences(window.messages[index + 1].text).first {
            return quote + " " + next
        }
        if index > 0, let previous = Self.sentences(window.messages[index - 1].text).last { return previous + " " + quote }
        return quote
    }

    /// A made-up item of `feature` that quotes the window's first message word for word and cites it: its main text,
    /// place and time from a label of another fixture, its dates nine days after the label's, no date phrase. Nil for
    /// priority messages (the item is a message) and when the window has no other fixture's label for the feature.
    private func madeUp(_ fields: JSONObject, feature: ExtractionFeature, seed: Int) -> JSONObject? {
        guard feature != .priorityMessages, let first = window.messages.first, let alias = window.alias(ofMessage: first.id),
              let sentence = Self.sentences(first.text).first else { return nil }
        let labels = foreign.filter { $0.fixture != fixture.id && $0.feature == feature }
        guard !labels.isEmpty else { return nil }
        let label = labels[seed % labels.count]
        var twin = fields
        twin["evidence"] = .string(String(sentence.prefix(300)))
        twin["source_message_ids"] = [.string(alias)]
        for key in ["title", "decision", "task", "event"] where twin[key] != nil { twin[key] = .string(label.text) }
        if twin["location"] != nil { twin["location"] = label.location.map(JSONValue.string) ?? .null }
        if twin["time"] != nil { twin["time"] = label.time.map { JSONValue.string($0.hourMinute) } ?? .null }
        for key in ["date", "event_date", "deadline"] {
            if let text = twin[key]?.stringValue, let day = LocalDate(iso: text) { twin[key] = .string(day.adding(days: 9).iso) }
        }
        for key in ["date_phrase", "deadline_phrase"] where twin[key] != nil { twin[key] = .null }
        return twin
    }

    /// The same item said again in other words, with its quote copied another way.
    private func reworded(_ fields: JSONObject, quote: String) -> JSONObject {
        var twin = fields
        twin["evidence"] = .string(OracleMisquote.misquote(quote, start: Self.stableHash(quote) &+ 3))
        for key in ["title", "decision", "task", "event", "reason"] {
            if let text = twin[key]?.stringValue { twin[key] = .string("Reminder: " + text.lowercased()) }
        }
        return twin
    }

    /// The same on every run (`StableHash`), as a non-negative Int.
    static func stableHash(_ text: String) -> Int { Int(StableHash.fnv64(text) >> 1) }
}

/// One labelled item's words as another conversation's made-up item would carry them (`inventedQuoted`).
struct ForeignLabel: Sendable {
    let fixture: String
    let feature: ExtractionFeature
    let text: String
    var location: String?
    var time: LocalTime?

    static func all(in fixture: Fixture) -> [ForeignLabel] {
        let e = fixture.expected
        let id = fixture.id
        return e.calendarEvents.map { ForeignLabel(fixture: id, feature: .calendarEvents, text: $0.title, location: $0.location, time: $0.time) }
            + e.decisions.map { ForeignLabel(fixture: id, feature: .decisions, text: $0.decision) }
            + e.rsvps.map { ForeignLabel(fixture: id, feature: .rsvps, text: $0.event) }
            + e.deadlines.map { ForeignLabel(fixture: id, feature: .deadlines, text: $0.task) }
    }
}
