import Core
import Foundation

/// What decoding one validated answer needs, and the notes it collects on what it dropped or corrected.
package struct DecodeContext {
    let feature: ExtractionFeature
    let window: MessageWindow
    let input: ConversationInput
    let resolver: TemporalResolver
    var notes: [ExtractionNote] = []
    /// How this feature's items were grounded (`ground`).
    var tally = GroundingTally()
    /// The window's message texts, normalised for the evidence check (see `Evidence`).
    let evidenceIndex: EvidenceIndex
    /// Each window message's words for alignment, built the first time a quote is not verbatim anywhere.
    var alignmentTexts: [Int: EvidenceAlignment.Text] = [:]
    /// Each cited message's words, times and dates for the field check (`FieldBacking`), built the first time cited.
    var messageFacts: [String: MessageFacts] = [:]
    /// The window's words, built on first use (`windowNames`).
    var windowWords: Set<String>?
    /// The date of the known item a `changed` verdict changes (`KnownItems.decode`): its phrase ("moves to Sunday") is
    /// read against the item's own date first, not the message's day.
    var currentDate: LocalDate?
    /// The known item a `changed` verdict changes: a field it keeps unchanged was backed when the item was first read,
    /// by messages that may have left the window since, so the field check does not clear or refuse it.
    var currentItem: ItemBody?

    /// `evidence` is the window's index when the caller built it already (once per window for every feature).
    init(feature: ExtractionFeature, window: MessageWindow, input: ConversationInput, evidence: EvidenceIndex? = nil) {
        self.feature = feature
        self.window = window
        self.input = input
        self.resolver = TemporalResolver(timeZone: input.timeZone)
        self.evidenceIndex = evidence ?? EvidenceIndex(window)
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
        if ids.isEmpty { tally.dropped += 1 }
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
        /// The model's date when code chose another, or when the model's date was kept unconfirmed (then equal to `date`).
        var modelDate: LocalDate?
        /// The phrase writes a weekday that no nearby occurrence of its month-day falls on: the date is in doubt.
        var weekdayConflict = false
        /// Code's reading is before the day of the message that says it: the item is over, not coming.
        var isPast = false
        /// The day of the message the date is read against (the phrase's, else the evidence's, else the first cited).
        var anchorDay: LocalDate?

        /// Whether the date lies outside the policy's window: before the message's day or more than `plausibleDays`
        /// after it (1900, 2200, 9999-12-31 and 0001-01-01 all do).
        var isOutsideWindow: Bool {
            guard let anchorDay else { return true }
            return !(0...DecodeContext.plausibleDays).contains(anchorDay.days(until: date))
        }
    }

    /// Confidence of an item whose date is in doubt (see `ResolvedDate.weekdayConflict`).
    static let conflictConfidence = 0.4

    /// How far from the message date a model's date may be and still count as a plausible reading of a phrase, and
    /// how far after it any kept date may be (`ResolvedDate.isOutsideWindow`).
    static let plausibleDays = 366

    /// The date policy. The phrase is read against the sent time of the cited message that holds it (else the
    /// message that holds the evidence, else the first cited one).
    /// - Code's date replaces the model's only when the resolver read the whole phrase with no date-like words left
    ///   over; a disagreement is kept as `modelDate` and noted.
    /// - Otherwise the model's date is kept when it is plausible (within `plausibleDays` of the message date), and
    ///   the item is flagged: `modelDate` equal to its date, and a `date_unconfirmed` note. An implausible model
    ///   date gives way to code's partial reading when there is one.
    /// - Whatever was chosen, phrase or no phrase, must lie in the window (`ResolvedDate.isOutsideWindow`); callers
    ///   drop an item whose date does not (`dropsOutsideWindow`).
    /// `deadline` reads the phrase as a deadline: midnight ends the named day.
    mutating func resolve(phrase: String?, modelDate: LocalDate, sources: [String], evidenceMessage: String? = nil,
                          item: String, deadline: Bool = false) -> ResolvedDate {
        var result = ResolvedDate(date: modelDate)
        let phrase = phrase?.trimmingCharacters(in: .whitespacesAndNewlines)
        let cited = sources.compactMap { input.message($0) }
        let holder = phrase.flatMap { $0.isEmpty ? nil : Evidence.messageHolding(phrase: $0, in: cited) ?? alignedMessage(phrase: $0, in: sources) }
        let anchor = holder ?? evidenceMessage.flatMap { input.message($0) } ?? cited.first
        result.anchorDay = anchor.map { LocalDate($0.sentAt, in: input.timeZone) }
        guard let phrase, !phrase.isEmpty, let anchor else { return result }
        var reading = resolver.read(phrase, reference: anchor.sentAt, deadline: deadline)
        var sent = "the message sent " + ISO8601Instant.string(anchor.sentAt, in: input.timeZone)
        if let current = currentDate, let noon = LocalTime(hour: 12, minute: 0) {
            // A change's phrase reads from the item's date ("moves to Sunday": the party's Sunday), unless the model read
            // it from the message's day and the item's reading disagrees ("moves to tomorrow").
            let fromItem = resolver.read(phrase, reference: WallClock.instant(current, noon, in: input.timeZone), deadline: deadline)
            let modelReadMessageDay = reading.isComplete && reading.expression?.date == modelDate && fromItem.expression?.date != modelDate
            if fromItem.isComplete, fromItem.expression != nil, !modelReadMessageDay {
                reading = fromItem
                sent = "the item's date \(current.iso)"
            }
        }
        let anchorDay = LocalDate(anchor.sentAt, in: input.timeZone)
        let plausible = abs(anchorDay.days(until: modelDate)) <= Self.plausibleDays
        guard let expression = reading.expression, reading.isComplete || !plausible else {
            result.modelDate = modelDate
            let why = reading.expression == nil ? "code cannot read it"
                : "code reads only part of it (\(reading.unread.prefix(5).joined(separator: ", ")) left over)"
            note(.dateUnconfirmed, "\(item): kept the model's \(modelDate.iso) for '\(phrase.prefix(60))': \(why)")
            return result
        }
        if let written = expression.weekdayConflict {
            result.weekdayConflict = true
            if modelDate.isoWeekday == written, plausible {
                // The model's date agrees with the written weekday and code's does not: never "corrected" away from it.
                result.modelDate = modelDate
                if expression.grain == .minute { (result.time, result.endTime) = (expression.time, expression.endTime) }
                note(.dateUnconfirmed, "\(item): kept the model's \(modelDate.iso), a \(modelDate.weekdayName) as '\(phrase.prefix(60))' "
                     + "says; code's \(expression.date.iso) is a \(expression.date.weekdayName)")
                return result
            }
            note(.dateUnconfirmed, "\(item): '\(phrase.prefix(60))' names a weekday that \(expression.date.iso), its month-day's next "
                 + "occurrence, is not (and none within a year is); kept with low confidence")
        }
        if expression.date < anchorDay {
            result.isPast = true
        }
        if expression.date != modelDate {
            result.modelDate = modelDate
            note(.dateCorrected, "\(item): '\(phrase.prefix(60))' is \(expression.date.iso) from \(sent), "
                 + "not \(modelDate.iso) as the model said")
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
