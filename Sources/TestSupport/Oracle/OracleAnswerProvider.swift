import Core
package import Extractors
import Foundation
package import PromptKit

/// One realistic kind of model mistake, applied to every item of an oracle answer.
package enum OracleNoise: String, Sendable, CaseIterable {
    /// The labels, exactly.
    case perfect
    /// One cited id moved to a neighbouring message (the next one, or the previous for the last).
    case ids
    /// The model's date one day late; the date phrase right.
    case dates
    /// The date phrase lower-cased and prefixed with "on" (a paraphrase that is not in the message).
    case phrase
    /// The date phrase keeps the clock time said with it ("this Friday at midnight").
    case withtime
    /// Every quote copied inexactly, one `OracleMisquote` family per item (rotating, so each family is used), and
    /// chat shorthand in date phrases spelled out ("tmrw" → "tomorrow").
    case misquote
    /// The labels, plus one invented item per item: same feature, a quote taken from another conversation (in no
    /// message of this one), citing a real message of the window that is not the item's, on another date.
    case invented
    /// Every item twice: the second reworded, with its quote copied another way.
    case repeated
    /// Every quote runs on into the next message of the window (the facts of one item written as two messages,
    /// quoted as one): the item's sentence, a space, and the next message's first sentence. Citations unchanged.
    case merge
    /// The labels, plus one made-up item per event, decision, RSVP and deadline that quotes a real message word for
    /// word: its title, place and time taken from another conversation's labels, nine days later, citing and quoting
    /// the first message of the window. The quote proves only that the message exists.
    case inventedQuoted = "invented-quoted"

    /// The modes that copy every quote exactly and add no item: each must score 1.0.
    package static let exactQuoting: [OracleNoise] = [.perfect, .ids, .dates, .phrase, .withtime]
}

/// How many items an oracle invented, so a test can say what share of them the checks dropped.
package actor OracleLog {
    package private(set) var invented = 0

    package init() {}

    func add(invented count: Int) { invented += count }
}

/// A labelled fixture with the date phrases its comments give.
package struct OracleFixture: Sendable {
    package let fixture: Fixture
    package let phrases: LabelPhrases

    package init(fixture: Fixture, fileText: String) {
        self.fixture = fixture
        self.phrases = LabelPhrases(fileText: fileText)
    }

    /// Every `*.yaml` fixture in `directory`, sorted by file name.
    package static func loadDirectory(_ directory: String) throws -> [OracleFixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".yaml") }.sorted()
        return try names.map { name in
            let file = directory + "/" + name
            let text = try String(contentsOfFile: file, encoding: .utf8)
            return OracleFixture(fixture: try FixtureLoader.parse(text, file: file), fileText: text)
        }
    }
}

/// Answers every extraction request from the fixture's labels, as a model that knows the right answer would:
/// aliases for ids, the labelled dates, the date phrase copied from the message, and evidence copied from the
/// message that supports each item. With `noise`, one kind of realistic mistake is made on every item, to measure
/// what the pipeline's checks recover. The conversation id of the request names the fixture.
package struct OracleAnswerProvider: AnswerProvider {
    package let fixtures: [String: OracleFixture]
    package let noise: OracleNoise
    package let log = OracleLog()
    /// Sentences of every fixture's messages, for `invented` quotes (each writer keeps those in none of its messages).
    let sentences: [String]
    /// Every fixture's labels, for `inventedQuoted` items (each writer takes those of other fixtures).
    let foreign: [ForeignLabel]

    package init(fixtures: [OracleFixture], noise: OracleNoise = .perfect) {
        self.fixtures = Dictionary(fixtures.map { ($0.fixture.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.noise = noise
        self.sentences = noise == .invented
            ? fixtures.flatMap { $0.fixture.messages.flatMap { OracleWriter.sentences($0.text) } }.filter { $0.split(separator: " ").count >= 5 }
            : []
        self.foreign = noise == .inventedQuoted ? fixtures.flatMap { ForeignLabel.all(in: $0.fixture) } : []
    }

    package var name: String { "oracle" }

    package func modelName(for prompt: Prompt) -> String { "oracle-\(noise.rawValue)" }

    package func answer(_ request: AnswerRequest) async throws -> ProviderAnswer {
        guard let oracle = fixtures[request.input.conversationID] else {
            throw OracleMissing(description: "the oracle has no fixture '\(request.input.conversationID)'")
        }
        // A feature the fixtures have no labels for: the answer that finds nothing, in its schema's shape.
        guard OracleWriter.answers[request.feature] != nil else {
            return ProviderAnswer(json: CombinedSchema.emptyAnswer(request.prompt.outputSchema ?? [:]), requests: 1)
        }
        let writer = OracleWriter(oracle: oracle, window: request.window, noise: noise, sentences: sentences, foreign: foreign)
        let (json, invented) = try writer.noisyAnswer(request.feature)
        if invented > 0 { await log.add(invented: invented) }
        return ProviderAnswer(json: json, requests: 1)
    }
}

/// A question the oracle's fixtures cannot answer: a test set up wrong, never a simulated model fault.
package struct OracleMissing: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String
}

/// Builds one feature's answer for one window.
struct OracleWriter {
    let oracle: OracleFixture
    let window: MessageWindow
    let noise: OracleNoise
    var sentences: [String] = []
    var foreign: [ForeignLabel] = []

    var fixture: Fixture { oracle.fixture }

    /// Each feature's answer from the labels: the one table of the oracle keyed by feature.
    static let answers: [ExtractionFeature: @Sendable (OracleWriter) -> JSONValue] = [
        .calendarEvents: { $0.events() }, .decisions: { $0.decisions() }, .priorityMessages: { $0.priorities() },
        .rsvps: { $0.rsvps() }, .deadlines: { $0.deadlines() },
    ]

    func answer(_ feature: ExtractionFeature) throws -> JSONValue {
        guard let answer = Self.answers[feature] else {
            throw OracleMissing(description: "the oracle has no labels for feature '\(feature.rawValue)'")
        }
        return answer(self)
    }

    private func events() -> JSONValue {
        let e = fixture.expected
        return ["events": .array(e.calendarEvents.enumerated().compactMap { index, item in
            let path = "calendar_events[\(index)].date"
            guard let cited = cite(item.source, datePath: path) else { return nil }
            let date = datePhrase(path, deadline: false, timePath: "calendar_events[\(index)].time")
            return [
                "title": .string(item.title), "date": .string(shift(item.date).iso), "time": text(item.time.map(clock)), "end_time": nil,
                "location": text(item.location), "description": "", "category": .string(item.category.rawValue), "confidence": 0.9,
                "date_phrase": text(date), "evidence": .string(evidence(item.source, datePath: path)), "source_message_ids": cited,
            ]
        })]
    }

    private func decisions() -> JSONValue {
        let e = fixture.expected
        return ["decisions": .array(e.decisions.compactMap { item in
            guard let cited = cite(item.source, datePath: nil) else { return nil }
            return [
                "decision": .string(item.decision), "category": .string(item.category.rawValue), "decided_by": nil, "deadline": nil,
                "date_phrase": nil, "evidence": .string(evidence(item.source, datePath: nil)), "source_message_ids": cited,
            ]
        })]
    }

    private func priorities() -> JSONValue {
        let e = fixture.expected
        return ["messages": .array(e.priorityMessages.compactMap { item in
            guard let cited = cite([item.message], datePath: nil)?.arrayValue?.first else { return nil }
            return [
                "message_id": cited, "priority": .string(item.priority.rawValue), "reason": "labelled",
                "action_required": .bool(item.actionRequired), "evidence": .string(evidence([item.message], datePath: nil)),
            ]
        })]
    }

    private func rsvps() -> JSONValue {
        let e = fixture.expected
        let user = fixture.reference.user
        return ["rsvps": .array(e.rsvps.enumerated().compactMap { index, item in
            let path = "rsvps[\(index)].event_date"
            guard let cited = cite(item.source, datePath: path) else { return nil }
            var responses: [JSONValue] = []
            if item.status == .responded, let response = item.response,
               let message = fixture.messages.last(where: { $0.sender == user && window.alias(ofMessage: $0.id) != nil }),
               let who = window.alias(ofParticipant: user), let alias = window.alias(ofMessage: message.id) {
                responses.append(["participant_id": .string(who), "response": .string(response.rawValue), "message_id": .string(alias)])
            }
            return [
                "event": .string(item.event), "event_date": .string(shift(item.eventDate).iso),
                "deadline": text(item.deadline.map { shift($0).iso }),
                "requested_by": text(window.alias(ofParticipant: item.requestedBy)),
                "date_phrase": text(datePhrase(path, deadline: false, timePath: "rsvps[\(index)].time")),
                "deadline_phrase": text(item.deadline == nil ? nil : datePhrase("rsvps[\(index)].deadline", deadline: true)),
                "evidence": .string(evidence(item.source, datePath: path)), "source_message_ids": cited, "responses": .array(responses),
            ]
        })]
    }

    private func deadlines() -> JSONValue {
        let e = fixture.expected
        return ["deadlines": .array(e.deadlines.enumerated().compactMap { index, item in
            let path = "deadlines[\(index)].deadline"
            guard let cited = cite(item.source, datePath: path) else { return nil }
            return [
                "task": .string(item.task), "deadline": .string(shift(item.deadline).iso), "time": nil,
                "category": .string(item.category.rawValue), "priority": "medium", "details": nil,
                "date_phrase": text(datePhrase(path, deadline: true)), "evidence": .string(evidence(item.source, datePath: path)),
                "source_message_ids": cited,
            ]
        })]
    }

    // MARK: Pieces

    private func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    private func clock(_ time: LocalTime) -> String { time.hourMinute }

    /// `dates` noise: one day late.
    private func shift(_ date: LocalDate) -> LocalDate { noise == .dates ? date.adding(days: 1) : date }

    /// The labelled sources in this window, plus the message holding the date phrase (a careful model cites it
    /// too), as aliases; with `ids` noise the first one moves to a neighbour. Nil when the item is not in this window.
    private func cite(_ sources: [String], datePath: String?) -> JSONValue? {
        var ids = sources.filter { window.alias(ofMessage: $0) != nil }
        guard !ids.isEmpty else { return nil }
        if let holder = datePath.flatMap({ oracle.phrases.dates[$0]?.message }), window.alias(ofMessage: holder) != nil, !ids.contains(holder) {
            ids.append(holder)
        }
        if noise == .ids, let index = window.messages.firstIndex(where: { $0.id == ids[0] }) {
            let neighbour = index + 1 < window.messages.count ? index + 1 : index - 1
            if neighbour >= 0 { ids[0] = window.messages[neighbour].id }
        }
        var seen: Set<String> = []
        return .array(ids.filter { seen.insert($0).inserted }.compactMap { window.alias(ofMessage: $0) }.map(JSONValue.string))
    }

    /// The date phrase as the message says it (with the noise applied), or the label's own words when they are
    /// not found verbatim.
    /// With `withtime` noise a deadline's phrase takes the clock time said after it; an event's only the time its
    /// label gives (`timePath`), so two events of one day keep their own times.
    private func datePhrase(_ path: String, deadline: Bool, timePath: String? = nil) -> String? {
        guard let label = oracle.phrases.dates[path] else { return nil }
        let holder = label.message.flatMap { id in fixture.messages.first { $0.id == id } }
        var phrase = holder.flatMap { LabelPhrases.verbatim(label.phrase, in: $0.text, deadline: deadline) } ?? label.phrase
        switch noise {
        case .phrase: phrase = "on " + phrase.lowercased()
        case .withtime:
            let time = timePath.flatMap { oracle.phrases.times[$0]?.phrase }
            if let holder, deadline || time != nil {
                phrase = LabelPhrases.withTime(phrase, in: holder.text, time: time.map { $0.replacingOccurrences(of: "at ", with: "") })
            }
        case .perfect, .ids, .dates, .invented, .repeated, .merge, .inventedQuoted: break
        case .misquote: phrase = OracleMisquote.replacingWords(phrase, OracleMisquote.shorthandTable, clocks: true)
        }
        return phrase
    }

    /// Words copied from the supporting message: the sentence holding the date phrase when there is one, else the
    /// first sentence of the first labelled source; at most 300 characters.
    private func evidence(_ sources: [String], datePath: String?) -> String {
        let label = datePath.flatMap { oracle.phrases.dates[$0] }
        let holder = label?.message.flatMap { id in sources.contains(id) ? id : nil } ?? sources.first
        let text = fixture.messages.first { $0.id == holder }?.text ?? ""
        let sentences = Self.sentences(text)
        let phrase = label.flatMap { LabelPhrases.verbatim($0.phrase, in: text, deadline: false) }
        let sentence = phrase.flatMap { p in sentences.first { $0.contains(p) } } ?? sentences.first ?? text
        return String(sentence.prefix(300))
    }

    /// Pieces of `text` ended by ".", "!" or "?" and a space, or by a line break.
    static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var previous: Character?
        for c in text {
            if c.isNewline || (c == " " && [".", "!", "?"].contains(previous)) {
                let trimmed = current.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { out.append(trimmed) }
                current = ""
            } else {
                current.append(c)
            }
            previous = c
        }
        let trimmed = current.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { out.append(trimmed) }
        return out
    }
}
