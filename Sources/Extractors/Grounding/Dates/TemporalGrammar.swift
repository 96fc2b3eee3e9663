import Core

/// A date found in the text: the resolved day and an optional part of day ("Friday night").
struct DatePart: Sendable, Hashable {
    var date: LocalDate
    var period: DayPeriod?
    /// Index of the first token after the date.
    var next: Int
    /// The written year ("March 3, 2027", "3/3/27"): the date is not moved to agree with a written weekday.
    var yearWritten = false
    /// "the 14th": a day of the month without a month; after a weekday it is read as "Friday 14th" is.
    var dayOnly = false
    /// The written weekday (ISO 1-7) when `date` does not fall on it (see `TemporalResolver`'s weekday rule).
    var weekdayConflict: Int?
}

/// A time or time range found in the text, still unresolved (see `ClockSpec`).
struct TimePart: Sendable, Hashable {
    var start: ClockSpec
    var end: ClockSpec?
    var next: Int
    /// A part of day written after the time ("6 in the morning"); it wins over one beside the date.
    var period: DayPeriod?
}

/// One phrase: tokens `first..<next`, holding a date, a time or both.
struct PhraseMatch: Sendable, Hashable {
    var first: Int
    var next: Int
    var date: DatePart?
    var time: TimePart?
    var isDeadline: Bool
}

/// The small grammar over `DateToken`s:
///
///     phrase   := [deadline] (date [","] [time] | time [","] ["on"] [date])
///     deadline := "by" | "before" | "due" ["by" | "on"] | ("no" | "not") "later" "than"
///     time     := ["at" | "@" | "from" | "between"] clock [separator clock]
///
/// Dates are resolved here against `today` (the message's day); clock times stay raw until the
/// whole phrase is known.
struct TemporalGrammar: Sendable {
    let tokens: [DateToken]
    let today: LocalDate
    /// Decides which country-specific named days are read (see `NamedDay`).
    var region: HolidayRegion = .other
    /// Reading a phrase a model quoted rather than a whole message: a bare ordinal ("12th") is then a day of the
    /// month, as "the 12th" is (in running text it may be "12th grade").
    var quoted = false

    /// All phrases, left to right, never overlapping.
    func phrases() -> [PhraseMatch] {
        var found: [PhraseMatch] = []
        var index = 0
        while index < tokens.count {
            if startsCleanly(index), let match = phrase(at: index) {
                found.append(match)
                index = match.next
            } else {
                index += 1
            }
        }
        return found
    }

    /// The longest phrase starting at `index`, if any.
    func phrase(at index: Int) -> PhraseMatch? {
        let deadlineEnd = deadlinePrefix(at: index)
        let body = deadlineEnd ?? index
        var best: PhraseMatch?

        if let date = datePart(at: body) {
            var match = PhraseMatch(first: index, next: date.next, date: date, time: nil, isDeadline: deadlineEnd != nil)
            if let time = timePart(at: skipping([","], from: date.next), afterDate: true) {
                match.time = time
                match.next = time.next
            }
            best = match
        }
        if let time = timePart(at: body, afterDate: false) {
            var match = PhraseMatch(first: index, next: time.next, date: nil, time: time, isDeadline: deadlineEnd != nil)
            var k = skipping([","], from: time.next)
            if word(k) == "on" { k += 1 }
            if let date = datePart(at: k) {
                match.date = date
                match.next = date.next
            }
            if best.map({ match.next > $0.next }) ?? true { best = match }
        }
        return best
    }

    /// "by", "before", "due [by|on]", "no later than": the index after the prefix.
    func deadlinePrefix(at i: Int) -> Int? {
        switch word(i) {
        case "by", "before": return i + 1
        case "due": return ["by", "on"].contains(word(i + 1)) ? i + 2 : i + 1
        case "no", "not": return word(i + 1) == "later" && word(i + 2) == "than" ? i + 3 : nil
        default: return nil
        }
    }

    // MARK: Token helpers

    func token(_ i: Int) -> DateToken? { tokens.indices.contains(i) ? tokens[i] : nil }

    /// The lower-cased word at `i`, nil for numbers and punctuation.
    func word(_ i: Int) -> String? {
        guard let t = token(i), t.kind == .word else { return nil }
        return t.lower
    }

    func isPunctuation(_ i: Int, _ marks: Set<String>) -> Bool {
        guard let t = token(i), t.isPunctuation else { return false }
        return marks.contains(t.text)
    }

    /// True when token `i` directly follows token `i - 1` with no space between.
    func touches(_ i: Int) -> Bool {
        guard i > 0, let t = token(i) else { return false }
        return tokens[i - 1].end == t.start
    }

    func skipping(_ marks: Set<String>, from i: Int) -> Int { isPunctuation(i, marks) ? i + 1 : i }

    /// A number may start a phrase only if it is not the tail of something else ("$25", "#12",
    /// "555-123-4567", "v2").
    func startsCleanly(_ i: Int) -> Bool {
        guard let t = token(i), t.isNumber, touches(i) else { return true }
        let previous = tokens[i - 1]
        if !previous.isPunctuation { return false }
        if ["$", "#", "£", "€", "+", "%"].contains(previous.text) { return false }
        if ["-", "/", ".", ":", ","].contains(previous.text), i >= 2, touches(i - 1), tokens[i - 2].isNumber { return false }
        return true
    }

    /// A number-ending form may end before token `i` only if the number is not glued to more
    /// digits or letters ("4%", "4:30:12", "4.5", "4kids", "1/2/3/4", "555-1234").
    func endsCleanly(before i: Int, allowDash: Bool = false) -> Bool {
        guard let t = token(i), touches(i) else { return true }
        switch t.kind {
        case .number, .word: return false
        case .punctuation:
            if ["%", "/", ":", "$"].contains(t.text) { return false }
            let gluedNumber = token(i + 1)?.isNumber == true && touches(i + 1)
            if t.text == "." { return !gluedNumber }
            if ["-", "–"].contains(t.text), !allowDash { return !gluedNumber }
            return true
        }
    }
}
