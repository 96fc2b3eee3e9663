import Core
package import Foundation

/// Finds English date and time expressions in a message and resolves them against the message's
/// sent instant in the user's time zone. Code, not the LLM, computes dates: the model quotes a
/// phrase, this type turns it into a value.
///
/// Conventions (docs/architecture.md, "Dates", copies this list):
/// - A bare or "this" weekday ("Friday", "this Fri", "on Tuesday") is the next such day on or
///   after the message date; the message's own weekday means the message date.
/// - "next <weekday>" is that weekday in the following Monday-to-Sunday week (so on a Sunday,
///   "next Monday" is the following day). "last <weekday>" is the most recent such day before
///   the message date.
/// - A month-day ("March 14", "3/14", "14th of March") or "the Nth" without a year is the next
///   occurrence on or after the message date ("Feb 29" waits for a leap year; "the 31st" skips
///   months without one). Numeric dates are month first (US).
/// - A weekday written with a month-day ("Wednesday, November 25", "Tue 3/3") is the occurrence of that month-day
///   on that weekday nearest the message date, past or future (people write both for a specific near day); with
///   none within a year, or a written year that disagrees, the month-day as read is kept and `weekdayConflict` set.
/// - An hour without am/pm is afternoon from 1 to 7 and morning otherwise; 12 is noon; a leading
///   zero or an hour of 13-23 is a 24-hour time. A part of day next to the date overrides this:
///   "tonight at 8", "Friday night at 8" are 20:00; "tomorrow morning at 7" is 07:00.
/// - In a range, a missing am/pm is taken from the other end ("2-4pm" is 14:00-16:00, "11-1pm" is
///   11:00-13:00). A range in which neither end has am/pm must end after it starts ("3-2" is a
///   score) and needs "from", "between", "at" or a date before it.
/// - "today" and "tonight" are the message date (day grain), "tomorrow" is +1, "yesterday" is -1.
/// - "this weekend" (and "the weekend") is the coming Saturday on or after the message date;
///   "next weekend" is the Saturday of the following week. "end of the month" is the month's last
///   day; "end of the week" is the coming Friday (on or after the message date); "end of day" and
///   "EOD" are the message date.
/// - "in N days/weeks" counts from the message date.
/// - A time with no date ("practice at 5") is on the message date, minute grain.
/// - "midnight" is the midnight that ends the named day: "Friday at midnight" is Saturday 00:00,
///   and a bare "midnight" is 00:00 after the message date. "noon" is 12:00. For a deadline ("due
///   Friday at midnight", or any phrase read as a deadline) the date is the day that ends at that
///   midnight and the time is 23:59 of it: a Friday deadline, not a Saturday one.
/// - A part of day after the time wins: "at 6 in the morning" is 06:00, "at 8 at night" 20:00; "6am-ish" and
///   "6ish" are read as 6am and 6.
/// - A weekday with an ordinal ("Monday 7th", "Mon the 7th", "Friday, 12th") is the next day of the month with
///   that number on or after the message date that falls on that weekday (a bare ordinal such as "the 7th" is the
///   next 7th).
/// - Named days (New Year's Day and Eve, Valentine's Day, Halloween, Christmas Eve and Day, July 4th /
///   Independence Day, Thanksgiving as the 4th Thursday of November, Easter) are the next occurrence on or after
///   the message date. In US zones also Mother's Day, Father's Day, Memorial Day and Labor Day; in UK zones
///   Mothering Sunday, Father's Day, Good Friday, Easter Monday, Boxing Day and the May, spring and August bank
///   holidays. Elsewhere those words are not read.
/// - Deadline forms ("by", "before", "due", "no later than") give the inner expression's value
///   with `isDeadline` set.
/// - A bare hour needs "at" or "from" ("at 4" is a time, "4 kids" is not); in a quoted phrase (`read`) a bare
///   ordinal ("12th") is a day of the month, as "the 12th" is; numbers glued to "$", "#", "%",
///   other digits or letters, and fractions followed by a unit, are never dates.
/// - DST: a wall time in a spring-forward gap moves forward by the gap (2:30 becomes 3:30 local,
///   flagged `.skippedForward(minutes: 60)`; `time` holds the adjusted wall time); a wall time that
///   repeats at fall-back takes the first, daylight occurrence (flagged `.ambiguousFirstOccurrence`).
/// - `range` is in UTF-16 offsets.
package struct TemporalResolver: Sendable {
    package let timeZone: TimeZone

    package init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// All expressions in `text`, in order of appearance, resolved against `reference` (the message's sent instant).
    package func resolve(_ text: String, reference: Date) -> [TemporalExpression] {
        let grammar = grammar(text, reference: reference)
        return grammar.phrases().compactMap { expression(for: $0, in: text, grammar: grammar, deadline: false) }
    }

    private func grammar(_ text: String, reference: Date, quoted: Bool = false) -> TemporalGrammar {
        TemporalGrammar(tokens: DateTokenizer.tokenize(text), today: LocalDate(reference, in: timeZone),
                        region: HolidayRegion(timeZone: timeZone), quoted: quoted)
    }

    /// Resolves a short phrase that the LLM quoted (e.g. "next Friday at 4pm"): the single best combined value, or nil.
    ///
    /// When the phrase splits into pieces ("Friday, around 4pm"), the first date and the first
    /// time are combined into one value spanning both.
    package func resolvePhrase(_ phrase: String, reference: Date) -> TemporalExpression? {
        read(phrase, reference: reference).expression
    }

    /// Reads a quoted phrase as `resolvePhrase` does and says which date-like words it left unread, so a caller can
    /// tell a whole reading from a partial one ("by Monday 7th" read as "by Monday" would leave "7th").
    /// `deadline` reads the phrase as a deadline even without "by"/"due" (midnight ends the named day).
    package func read(_ phrase: String, reference: Date, deadline: Bool = false) -> PhraseReading {
        let grammar = grammar(phrase, reference: reference, quoted: true)
        let matches = grammar.phrases()
        guard let first = matches.first else {
            return PhraseReading(expression: nil, unread: Self.dateLikeWords(grammar.tokens, covered: []))
        }
        let isDeadline = matches.contains(where: \.isDeadline)
        let dated = matches.first(where: { $0.date != nil })
        let timed = matches.first(where: { $0.time != nil })
        var chosen = dated ?? first
        var covered = [chosen.first..<chosen.next]
        if chosen.time == nil, let timed, timed.date == nil {
            covered.append(timed.first..<timed.next)
            chosen = PhraseMatch(
                first: min(chosen.first, timed.first), next: max(chosen.next, timed.next),
                date: chosen.date, time: timed.time, isDeadline: isDeadline
            )
        }
        chosen.isDeadline = isDeadline
        return PhraseReading(
            expression: expression(for: chosen, in: phrase, grammar: grammar, deadline: deadline),
            unread: Self.dateLikeWords(grammar.tokens, covered: covered))
    }

    /// Tokens outside `covered` that carry date meaning: numbers, ordinal suffixes, weekday and month names,
    /// parts of day, relative day words and the words of named days.
    static func dateLikeWords(_ tokens: [DateToken], covered: [Range<Int>]) -> [String] {
        tokens.indices.filter { index in !covered.contains { $0.contains(index) } }.compactMap { index in
            let token = tokens[index]
            if token.isNumber { return token.text }
            guard token.kind == .word else { return nil }
            let w = token.lower
            let dateLike = DateVocabulary.weekdays[w] != nil || DateVocabulary.months[w] != nil
                || DateVocabulary.ordinalSuffixes.contains(w) || DateVocabulary.dateWords.contains(w)
                || NamedDay.words.contains(w)
            return dateLike ? token.text : nil
        }
    }

    private func expression(for match: PhraseMatch, in text: String, grammar: TemporalGrammar, deadline: Bool) -> TemporalExpression? {
        let tokens = grammar.tokens
        let range = tokens[match.first].start..<tokens[match.next - 1].end
        let utf16 = text.utf16
        let matched = String(utf16[utf16.index(utf16.startIndex, offsetBy: range.lowerBound)..<utf16.index(utf16.startIndex, offsetBy: range.upperBound)]) ?? ""
        var date = match.date?.date ?? grammar.today

        guard let timePart = match.time else {
            return TemporalExpression(
                text: matched, range: range, date: date, time: nil, endTime: nil, grain: .day,
                isDeadline: match.isDeadline, wallTimeAdjustment: nil, start: nil, startISO: date.iso, end: nil, endISO: nil,
                weekdayConflict: match.date?.weekdayConflict
            )
        }
        let period = timePart.period ?? match.date?.period
        var time: LocalTime
        var endTime: LocalTime?
        if let endSpec = timePart.end, let (s, e) = ClockSpec.resolveRange(start: timePart.start, end: endSpec, period: period) {
            (time, endTime) = (s, e)
        } else if let s = timePart.start.resolved(period: period) {
            time = s
        } else {
            return nil
        }
        if timePart.start.special == .midnight, timePart.end == nil {
            if match.isDeadline || deadline {
                time = LocalTime(hour: 23, minute: 59)!  // the named day's last minute: a Friday deadline stays Friday
            } else {
                date = date.adding(days: 1)
            }
        } else if timePart.start.special == .midnight {
            date = date.adding(days: 1)
        }

        let clock = WallClock(timeZone: timeZone)
        let resolution = clock.instant(date: date, time: time)
        var end: Date?
        if let endTime {
            end = clock.instant(date: endTime > time ? date : date.adding(days: 1), time: endTime).instant
        }
        let wall = clock.wallTime(of: resolution.instant)
        date = wall.date
        time = wall.time
        return TemporalExpression(
            text: matched, range: range, date: date, time: time, endTime: endTime, grain: .minute,
            isDeadline: match.isDeadline, wallTimeAdjustment: resolution.adjustment,
            start: resolution.instant, startISO: clock.iso(resolution.instant), end: end, endISO: end.map(clock.iso),
            weekdayConflict: match.date?.weekdayConflict
        )
    }
}
