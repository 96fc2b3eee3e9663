import Chrono
import Foundation
import JSONKit

/// What decoding one validated answer needs, and the notes it collects on what it dropped or corrected.
struct DecodeContext {
    let feature: ExtractionFeature
    let window: MessageWindow
    let input: ConversationInput
    let resolver: TemporalResolver
    var notes: [ExtractionNote] = []

    init(feature: ExtractionFeature, window: MessageWindow, input: ConversationInput) {
        self.feature = feature
        self.window = window
        self.input = input
        self.resolver = TemporalResolver(timeZone: input.timeZone)
    }

    mutating func note(_ kind: ExtractionNote.Kind, _ message: String) {
        notes.append(ExtractionNote(feature: feature, kind: kind, message: message))
    }

    /// Maps cited aliases to real message ids. Unknown aliases are removed and reported; nil (drop the item)
    /// when none is left.
    mutating func sources(_ value: JSONValue?, item: String) -> [String]? {
        let aliases = (value?.arrayValue ?? []).compactMap(\.stringValue)
        var ids: [String] = []
        var unknown: [String] = []
        for alias in aliases {
            if let message = window.message(forAlias: alias) {
                if !ids.contains(message.id) { ids.append(message.id) }
            } else {
                unknown.append(alias)
            }
        }
        if !unknown.isEmpty {
            let quoted = unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", ")
            note(.unknownSource, ids.isEmpty
                 ? "dropped \(item): it cites only message ids that are not in the conversation (\(quoted))"
                 : "\(item): removed cited ids that are not in the conversation (\(quoted))")
        }
        if ids.isEmpty && unknown.isEmpty { note(.dropped, "dropped \(item): it cites no message") }
        return ids.isEmpty ? nil : ids.sorted { sentAt($0) < sentAt($1) }
    }

    func sentAt(_ id: String) -> Date { input.message(id)?.sentAt ?? .distantPast }

    /// A participant id from an alias, or nil when the model named nobody real.
    func participant(_ value: JSONValue?) -> String? {
        guard let alias = value?.stringValue else { return nil }
        return window.participantID(forAlias: alias)
    }

    /// A date the schema already checked; a string that still fails (a validator gap) drops the item.
    mutating func date(_ value: JSONValue?, field: String, item: String) -> LocalDate?? {
        guard let value, !value.isNull else { return .some(nil) }
        guard let text = value.stringValue, let day = LocalDate(iso: text) else {
            note(.dropped, "dropped \(item): \(field) '\(value.stringValue ?? value.serialized())' is not a real date")
            return nil
        }
        return .some(day)
    }

    struct ResolvedDate {
        var date: LocalDate
        var time: LocalTime?
        var endTime: LocalTime?
        /// The model's date when code chose another.
        var modelDate: LocalDate?
    }

    /// Recomputes a date from the phrase the model quoted, read against the sent time of the cited message
    /// that contains it. Code's value wins; a disagreement is kept as `modelDate` and noted.
    mutating func resolve(phrase: String?, modelDate: LocalDate, sources: [String], item: String) -> ResolvedDate {
        var result = ResolvedDate(date: modelDate)
        guard let phrase = phrase?.trimmingCharacters(in: .whitespacesAndNewlines), !phrase.isEmpty else { return result }
        let cited = sources.compactMap { input.message($0) }
        let needle = phrase.lowercased()
        let anchor = cited.first { $0.text.lowercased().contains(needle) } ?? cited.first
        guard let anchor, let expression = resolver.resolvePhrase(phrase, reference: anchor.sentAt) else { return result }
        if expression.date != modelDate {
            result.modelDate = modelDate
            note(.dateCorrected, "\(item): '\(phrase.prefix(60))' is \(expression.date.iso) from the message sent "
                 + "\(ISOTime.string(anchor.sentAt, in: input.timeZone)), not \(modelDate.iso) as the model said")
        }
        result.date = expression.date
        if expression.grain == .minute {
            result.time = expression.time
            result.endTime = expression.endTime
        }
        return result
    }
}

extension JSONValue {
    /// A string, or nil for null / absent / empty-after-trimming.
    var nonEmptyString: String? {
        guard let text = stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
