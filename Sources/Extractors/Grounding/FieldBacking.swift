import Core
import Foundation

/// What the messages an item cites say, as the field check compares it: their content words (folded as evidence
/// alignment folds them, plus plural and other-language day words), the times and dates the resolver reads in them,
/// the numbers written in them, and their senders' names. Built once per message and decode.
struct MessageFacts: Sendable {
    var words: Set<String> = []
    var prefixes: Set<String> = []
    var numbers: Set<String> = []
    var times: Set<LocalTime> = []
    var dates: Set<LocalDate> = []
    /// How many words the messages have, and how many of them are English function words (`FieldWords.english`).
    var wordCount = 0
    var englishCount = 0

    /// Written in another language: an English title, task or decision translates them, so it need not share their
    /// words (names and numbers still count when it does).
    var otherLanguage: Bool { wordCount >= 4 && Double(englishCount) < 0.08 * Double(wordCount) }

    mutating func formUnion(_ other: MessageFacts) {
        wordCount += other.wordCount
        englishCount += other.englishCount
        words.formUnion(other.words)
        prefixes.formUnion(other.prefixes)
        numbers.formUnion(other.numbers)
        times.formUnion(other.times)
        dates.formUnion(other.dates)
    }

    /// True when one of `text`'s content words is here (same stem, or the same first `FieldWords.prefixLength`
    /// letters: "drive"/"driving"), or `text` has no content word at all (nothing to contradict).
    func sharesContent(_ text: String) -> Bool {
        let (content, shared) = overlap(text)
        return content == 0 || shared > 0
    }

    /// How many distinct content words `text` has, and how many of them are here (same stem or same prefix).
    func overlap(_ text: String) -> (content: Int, shared: Int) {
        let content = Set(FieldWords.content(text))
        let shared = content.count { word in words.contains(word) || FieldWords.prefix(word).map { prefixes.contains($0) } == true }
        return (content.count, shared)
    }

    /// True when `time` is written in these messages: the resolver reads it (start or end of a range), or its hour
    /// is written as a number (12- or 24-hour; with its minutes when they are not :00), or "noon"/"midnight".
    func holds(_ time: LocalTime) -> Bool {
        if times.contains(time) { return true }
        if time.hour == 12, time.minute == 0, words.contains("noon") || words.contains("midday") { return true }
        if (time.hour == 0 && time.minute == 0) || (time.hour == 23 && time.minute == 59), words.contains("midnight") { return true }
        let hour12 = time.hour % 12 == 0 ? 12 : time.hour % 12
        guard numbers.contains(String(hour12)) || numbers.contains(String(time.hour)) || numbers.contains(String(format: "%02d", time.hour))
        else { return false }
        return time.minute == 0 || numbers.contains(String(format: "%02d", time.minute)) || numbers.contains(String(time.minute))
    }
}

/// The content words of a field: evidence alignment's words without its small words and item boilerplate, singular,
/// with other languages' day words read as English ones.
enum FieldWords {
    static let prefixLength = 5

    static func content(_ text: String) -> [String] {
        EvidenceWords.words(Evidence.normalize(text)).compactMap { word -> String? in
            guard !EvidenceWords.smallWords.contains(word), !boilerplate.contains(word), word.count >= 2,
                  !word.allSatisfy(\.isNumber) else { return nil }
            return stem(word)
        }
    }

    /// The word's first `prefixLength` letters when it is long enough to share a stem with another word by them.
    static func prefix(_ word: String) -> String? { word.count >= prefixLength ? String(word.prefix(prefixLength)) : nil }

    /// Singular, and the English weekday for another language's ("sábado" → "saturday").
    static func stem(_ word: String) -> String {
        if let day = dayWords[word] { return day }
        if word.count > 4, word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.count > 4, ["ches", "shes", "sses", "xes"].contains(where: { word.hasSuffix($0) }) { return String(word.dropLast(2)) }
        if word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us") { return String(word.dropLast()) }
        return word
    }

    /// Words a model adds to any item ("Reminder: ...", "Event"): they say nothing the chat must back.
    static let boilerplate: Set<String> = [
        "event", "events", "reminder", "reminders", "deadline", "deadlines", "due", "task", "tasks", "rsvp", "rsvps",
        "item", "items", "need", "needs", "needed", "must", "should", "new", "not", "no",
    ]

    /// The person a decision starts with ("Maria drives to ...", "Reto's family brings ..."), folded as evidence words
    /// are: a capitalized first word followed by a verb in the third person ("drives", "takes"), or by "'s family".
    /// Nil when the decision does not start that way ("Farewell gift for ...", "Pickup moved to 4").
    static func subjectName(_ text: String) -> String? {
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard tokens.count >= 2, let first = tokens.first, first.first?.isUppercase == true else { return nil }
        let name = first.hasSuffix("'s") || first.hasSuffix("’s") ? String(first.dropLast(2)) : first
        let next = tokens[1].lowercased()
        let verb = next.count >= 4 && next.hasSuffix("s") && !next.hasSuffix("ss") && next.allSatisfy(\.isLetter)
        guard name != first ? next == "family" || next == "mom" || next == "dad" : verb else { return nil }
        guard let word = EvidenceWords.words(Evidence.normalize(name)).first, word.count >= 2, !english.contains(word),
              !commonSubjects.contains(word) else { return nil }
        return word
    }

    /// The capitalized words after the first ("Jen orders flowers for Miss Irina" → jen is not one, irina and miss
    /// are), folded as evidence words are, without weekday and month names: a decision naming two or more of them,
    /// none of which the chat mentions, is about other people.
    static func properNames(_ text: String) -> Set<String> {
        let tokens = text.split(whereSeparator: \.isWhitespace).dropFirst()
        return Set(tokens.compactMap { token -> String? in
            guard token.first?.isUppercase == true,
                  let word = EvidenceWords.words(Evidence.normalize(String(token))).first, word.count >= 2,
                  DateVocabulary.weekdays[word] == nil, DateVocabulary.months[word] == nil else { return nil }
            return word
        })
    }

    /// Subjects that are no one's name ("Everyone brings a dish", "Parents take turns").
    static let commonSubjects: Set<String> = [
        "everyone", "everybody", "each", "every", "all", "both", "nobody", "someone", "somebody", "anyone", "parents",
        "kids", "children", "class", "team", "school", "coach", "teacher", "mom", "dad", "mum", "grandma", "grandpa",
        "family", "families", "he", "she", "we", "they", "user", "i",
    ]

    /// Words that say a message is English: function words that are not words of the languages parents most often mix
    /// in ("a", "me", "in", "on" and "die" are).
    static let english: Set<String> = [
        "the", "to", "of", "and", "for", "is", "are", "we", "you", "will", "can", "with", "from", "please", "this",
        "that", "our", "your", "have", "it", "at", "be", "they", "what", "who", "if", "there",
    ]

    /// Day words of the languages parents most often mix in, as the English word: the date grammar's Spanish, French
    /// and German weekdays (`DateVocabulary`), and Portuguese and Italian ones and "today"/"tomorrow" words that only
    /// back a translated item (the grammar leaves them out: "segunda" and "quinta" are also ordinals).
    static let dayWords: [String: String] = DateVocabulary.otherWeekdays.compactMapValues { DateVocabulary.englishNames[$0] }
        .merging([
            "segunda": "monday", "terça": "tuesday", "terca": "tuesday", "quarta": "wednesday", "quinta": "thursday",
            "sexta": "friday", "lunedì": "monday", "martedì": "tuesday", "mercoledì": "wednesday", "giovedì": "thursday",
            "venerdì": "friday", "sabato": "saturday", "domenica": "sunday",
            "mañana": "tomorrow", "demain": "tomorrow", "morgen": "tomorrow", "amanhã": "tomorrow", "domani": "tomorrow",
            "hoy": "today", "heute": "today", "hoje": "today", "oggi": "today",
        ]) { grammar, _ in grammar }
}

extension DecodeContext {
    /// The facts of the cited messages together.
    mutating func facts(_ sources: [String]) -> MessageFacts {
        var all = MessageFacts()
        for id in sources {
            if let known = messageFacts[id] { all.formUnion(known); continue }
            guard let message = input.message(id) else { continue }
            var one = MessageFacts()
            var text = message.text
            if let sender = input.participants.first(where: { $0.id == message.senderID }) { text += " " + sender.name }
            for word in EvidenceWords.words(Evidence.normalize(message.text)) {
                one.wordCount += 1
                if FieldWords.english.contains(word) { one.englishCount += 1 }
            }
            for word in EvidenceWords.words(Evidence.normalize(text)) {
                if word.allSatisfy(\.isNumber) { one.numbers.insert(word); continue }
                let stem = FieldWords.stem(word)
                one.words.insert(stem)
                if let prefix = FieldWords.prefix(stem) { one.prefixes.insert(prefix) }
            }
            for expression in resolver.resolve(message.text, reference: message.sentAt) {
                one.dates.insert(expression.date)
                if let time = expression.time { one.times.insert(time) }
                if let end = expression.endTime { one.times.insert(end) }
            }
            messageFacts[id] = one
            all.formUnion(one)
        }
        return all
    }

    /// The field check's verdict on an item's main text (a title, task, decision or event), against the messages it
    /// cites and, after a re-cite, the ones the model cited (`modelCited`: a decision's proposal stays there). Backed
    /// when it shares two content words with them; when it shares one (a word any item of the chat may carry,
    /// "practice", "pickup"), only when the item has no date or time or its date or time is read there too; when it
    /// shares none, only when its date and time are both read there (a paraphrased title of a timed event). A date
    /// counts as read there when a cited message writes its day of the month, in any language. Messages in another
    /// language (`MessageFacts.otherLanguage`) back a text sharing one word with them, or none when its date or time
    /// is read there. An unbacked item is dropped, counted (`unbacked`) and noted.
    mutating func backed(_ text: String?, field: String, sources: [String], modelCited: [String] = [], date: LocalDate?,
                         time: LocalTime?, item: String) -> Bool {
        guard let text, !text.isEmpty else { return true }
        if currentItem?.words == text { return true }
        if field == "decision" {
            let names = FieldWords.properNames(text)
            let stranger = FieldWords.subjectName(text).flatMap { windowNames.contains($0) ? nil : $0 }
                ?? (names.count >= 2 && windowNames.isDisjoint(with: names) ? names.sorted().joined(separator: ", ") : nil)
            if let stranger {
                tally.unbacked += 1
                note(.unbacked, "dropped \(item): its \(field) '\(text.prefix(60))' names \(stranger), never mentioned in the chat")
                return false
            }
        }
        let cited = facts(sources + modelCited.filter { !sources.contains($0) })
        let (content, shared) = cited.overlap(text)
        // Its date is read there, or its day of the month is written there ("19. Juni", "le 10"): the resolver reads
        // English date words, and a chat in another language still writes the day's number.
        let onDay = date.map { cited.dates.contains($0) || cited.numbers.contains(String($0.day)) } ?? false
        let atTime = time.map { cited.holds($0) } ?? false
        if content == 0 || shared >= 2 { return true }
        if shared == 1, (date == nil && time == nil) || onDay || atTime { return true }
        if onDay, atTime { return true }
        if cited.otherLanguage, shared >= 1 || onDay || atTime { return true }
        tally.unbacked += 1
        let why = shared == 0 ? "shares no word with the messages it cites"
            : "shares one word with the messages it cites, which do not say its date or time"
        note(.unbacked, "dropped \(item): its \(field) '\(text.prefix(60))' \(why)")
        return false
    }

    /// Every word of the window's messages and its participants' names (folded as evidence words are), for the
    /// subject of a decision.
    var windowNames: Set<String> {
        mutating get {
            if let known = windowWords { return known }
            var words = Set<String>()
            for message in window.messages { words.formUnion(EvidenceWords.words(Evidence.normalize(message.text))) }
            for person in input.participants { words.formUnion(EvidenceWords.words(Evidence.normalize(person.name))) }
            windowWords = words
            return words
        }
    }

    /// The messages the model cited (real ids, unknown aliases left out), for `backed` after a re-cite.
    func modelCited(_ item: JSONValue) -> [String] {
        (item["source_message_ids"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { window.message(forAlias: $0)?.id } }
    }

    /// A time the cited messages do not write is cleared (nil), counted and noted; a written one is kept.
    mutating func backedTime(_ time: LocalTime?, field: String, sources: [String], item: String) -> LocalTime? {
        guard let time else { return nil }
        if facts(sources).holds(time) || keepsKnown(time, field: field) { return time }
        tally.cleared += 1
        note(.fieldCleared, "\(item): cleared its \(field) \(time.iso): no message it cites says it")
        return nil
    }

    /// Whether a changed item keeps the known item's own `field` time (see `currentItem`).
    func keepsKnown(_ time: LocalTime, field: String) -> Bool {
        switch currentItem {
        case .event(let known)?: field == "end time" ? known.endTime == time : known.time == time
        case .deadline(let known)?: known.time == time
        default: false
        }
    }

    /// A location none of whose words the cited messages hold is cleared (nil), counted and noted; messages in another
    /// language (`MessageFacts.otherLanguage`) keep it.
    mutating func backedLocation(_ location: String?, sources: [String], item: String) -> String? {
        guard let location else { return nil }
        if case .event(let known)? = currentItem, known.location == location { return location }
        let cited = facts(sources)
        // Words cannot be compared across languages ("school courtyard" for "la cour de l'école"), as for `backed`.
        if cited.sharesContent(location) || cited.otherLanguage { return location }
        tally.cleared += 1
        note(.fieldCleared, "\(item): cleared its location '\(location.prefix(60))': no message it cites names it")
        return nil
    }
}
