import Core

/// Date forms: relative days, weekdays, weekends, "in N days", "end of the month", month-day,
/// "the Nth", numeric M/D[/Y] and ISO dates.
extension TemporalGrammar {
    func datePart(at i: Int) -> DatePart? {
        guard let t = token(i) else { return nil }
        if t.isNumber {
            // "2moro", "2morrow", "2mrw": chat spellings of tomorrow (the tokenizer splits the digit from the letters).
            if t.text == "2", touches(i + 1), let glued = word(i + 1), ["moro", "morrow", "mrw", "mrow", "moz"].contains(glued) {
                return withPeriod(DatePart(date: today.adding(days: 1), next: i + 2))
            }
            guard let part = dayMonth(at: i) ?? isoDate(at: i) ?? numericDate(at: i) ?? (quoted ? bareOrdinal(at: i) : nil) else { return nil }
            return withPeriod(part)
        }
        guard let w = word(i) else { return nil }
        let part: DatePart?
        switch w {
        case "today": part = DatePart(date: today, next: i + 1)
        case "tonight", "tonite": part = DatePart(date: today, period: .evening, next: i + 1)
        case "tomorrow", "tmrw", "tmr", "tmw", "tmrow", "tomoz", "tomorow", "tommorow", "tommorrow":
            part = DatePart(date: today.adding(days: 1), next: i + 1)
        case "yesterday": part = DatePart(date: today.adding(days: -1), next: i + 1)
        case "this": part = thisForm(at: i + 1)
        case "coming": part = weekdayForm(at: i + 1, rule: .onOrAfter, qualified: true) ?? weekend(at: i + 1, nextWeek: false)
        case "next", "nxt":
            // "next week Thursday" / "nxt wk thurs": the weekday of the following week, as "next Thursday".
            let afterWeek = ["week", "wk"].contains(word(i + 1) ?? "") ? i + 2 : i + 1
            part = weekdayForm(at: afterWeek, rule: .followingWeek, qualified: true) ?? weekend(at: i + 1, nextWeek: true)
        case "last": part = weekdayForm(at: i + 1, rule: .previous, qualified: true)
        case "the": part = theNth(at: i) ?? endOf(at: i + 1) ?? weekend(at: i + 1, nextWeek: false) ?? namedDay(at: i + 1)
        case "le", "el": part = theNth(at: i)
        case "end", "eod": part = endOf(at: i)
        case "in": part = inCount(at: i + 1)
        default:
            if let named = namedDay(at: i) {
                part = named
            } else if DateVocabulary.weekdays[w] != nil {
                part = weekdayForm(at: i, rule: .onOrAfter, qualified: ["on", "by", "before", "until", "due", "than"].contains(word(i - 1) ?? ""))
            } else {
                part = monthDay(at: i)
            }
        }
        return part.map(withPeriod)
    }

    /// Absorbs "morning", "afternoon", "evening", "night" after a date.
    private func withPeriod(_ part: DatePart) -> DatePart {
        let periods: [String: DayPeriod] = ["morning": .morning, "afternoon": .afternoon, "evening": .evening, "night": .evening]
        guard let w = word(part.next), let period = periods[w] else { return part }
        return DatePart(date: part.date, period: period, next: part.next + 1)
    }

    // MARK: Relative forms

    private func thisForm(at i: Int) -> DatePart? {
        switch word(i) {
        case "morning": return DatePart(date: today, period: .morning, next: i + 1)
        case "afternoon": return DatePart(date: today, period: .afternoon, next: i + 1)
        case "evening": return DatePart(date: today, period: .evening, next: i + 1)
        case "coming": return weekdayForm(at: i + 1, rule: .onOrAfter, qualified: true) ?? weekend(at: i + 1, nextWeek: false)
        default: return weekdayForm(at: i, rule: .onOrAfter, qualified: true) ?? weekend(at: i, nextWeek: false)
        }
    }

    enum WeekdayRule { case onOrAfter, followingWeek, previous }

    /// The day with ISO weekday `target` under `rule` (see the conventions on `TemporalResolver`).
    func day(weekday target: Int, rule: WeekdayRule) -> LocalDate {
        let current = today.isoWeekday
        switch rule {
        case .onOrAfter:
            return today.adding(days: (target - current + 7) % 7)
        case .followingWeek:
            let monday = today.adding(days: 1 - current)
            return monday.adding(days: 7 + target - 1)
        case .previous:
            let back = (current - target + 7) % 7
            return today.adding(days: -(back == 0 ? 7 : back))
        }
    }

    /// A weekday name at `i`, optionally followed by an explicit date that then wins
    /// ("Saturday June 6", "Friday the 14th", "Fri 3/14").
    private func weekdayForm(at i: Int, rule: WeekdayRule, qualified: Bool) -> DatePart? {
        guard let w = word(i), let weekday = DateVocabulary.weekdays[w] else { return nil }
        var next = i + 1
        let abbreviated = w.count <= 5 && !w.hasSuffix("day")
        if abbreviated, isPunctuation(next, ["."]), touches(next) { next += 1 }
        let afterComma = skipping([","], from: next)
        if let explicit = explicitDate(at: afterComma) {
            if explicit.dayOnly, let ordinal = ordinalDay(at: afterComma + 1, weekday: weekday) { return ordinal }
            return agreeing(explicit, weekday: weekday)
        }
        if let ordinal = ordinalDay(at: afterComma, weekday: weekday) { return ordinal }
        // Other languages write the day without a suffix ("jueves 12", "samedi 7"); in English "Saturday 10" is a time.
        if DateVocabulary.englishWeekdays[w] == nil, isNumberNotTime(afterComma),
           let ordinal = ordinalDay(at: afterComma, weekday: weekday, ordinalRequired: false) { return ordinal }
        if DateVocabulary.ambiguousWeekdays.contains(w), !qualified {
            // "we sat at 4", "the sun": only a weekday when capitalized and a time follows.
            guard token(i)?.isCapitalized == true, timePart(at: afterComma, afterDate: true) != nil else { return nil }
        }
        return DatePart(date: day(weekday: weekday, rule: rule), next: next)
    }

    /// A written weekday and month-day agree: the occurrence of the month-day on that weekday nearest the message
    /// date, past or future, within a year; else the month-day's next occurrence, flagged. A written year is kept
    /// (flagged when the weekday disagrees).
    private func agreeing(_ explicit: DatePart, weekday: Int) -> DatePart {
        guard explicit.date.isoWeekday != weekday else { return explicit }
        var part = explicit
        if !explicit.yearWritten {
            let candidates = (today.year - 1...today.year + 1).compactMap {
                LocalDate(year: $0, month: explicit.date.month, day: explicit.date.day)
            }
            let nearest = candidates.filter { $0.isoWeekday == weekday && abs(today.days(until: $0)) <= 366 }
                .min { abs(today.days(until: $0)) < abs(today.days(until: $1)) }
            if let nearest {
                part.date = nearest
                return part
            }
        }
        part.weekdayConflict = weekday
        return part
    }

    /// "weekend" at `i`: the coming Saturday, or the Saturday of the following week.
    private func weekend(at i: Int, nextWeek: Bool) -> DatePart? {
        guard ["weekend", "wknd"].contains(word(i) ?? "") else { return nil }
        return DatePart(date: day(weekday: 6, rule: nextWeek ? .followingWeek : .onOrAfter), next: i + 1)
    }

    /// "end of the month", "end of next month", "end of the week", "end of March", "end of day", "EOD".
    private func endOf(at i: Int) -> DatePart? {
        if word(i) == "eod" { return DatePart(date: today, next: i + 1) }
        guard word(i) == "end", word(i + 1) == "of" else { return nil }
        var k = i + 2
        var following = false
        switch word(k) {
        case "the", "this": k += 1
        case "next": following = true; k += 1
        default: break
        }
        switch word(k) {
        case "month":
            var year = today.year
            var month = today.month + (following ? 1 : 0)
            if month > 12 { month = 1; year += 1 }
            return LocalDate(year: year, month: month, day: LocalDate.daysInMonth(year: year, month: month))
                .map { DatePart(date: $0, next: k + 1) }
        case "week":
            return DatePart(date: day(weekday: 5, rule: following ? .followingWeek : .onOrAfter), next: k + 1)
        case "day" where !following:
            return DatePart(date: today, next: k + 1)
        case let name? where k == i + 2:
            guard let month = DateVocabulary.months[name] else { return nil }
            let year = month >= today.month ? today.year : today.year + 1
            return LocalDate(year: year, month: month, day: LocalDate.daysInMonth(year: year, month: month))
                .map { DatePart(date: $0, next: k + 1) }
        default:
            return nil
        }
    }

    /// "in 3 days", "in two weeks", "in a week".
    private func inCount(at i: Int) -> DatePart? {
        let count: Int
        if let n = token(i)?.number, endsCleanly(before: i + 1) {
            count = n
        } else if let w = word(i), let n = DateVocabulary.numberWords[w] ?? (["a", "an"].contains(w) ? 1 : nil) {
            count = n
        } else {
            return nil
        }
        guard (0...400).contains(count) else { return nil }
        switch word(i + 1) {
        case "day", "days": return DatePart(date: today.adding(days: count), next: i + 2)
        case "week", "weeks": return DatePart(date: today.adding(days: 7 * count), next: i + 2)
        default: return nil
        }
    }

    // MARK: Explicit calendar dates

    /// A date that names its day of the month.
    func explicitDate(at i: Int) -> DatePart? {
        monthDay(at: i) ?? theNth(at: i) ?? dayMonth(at: i) ?? isoDate(at: i) ?? numericDate(at: i)
    }

    /// "March 14", "Mar. 14th", "Sept 3, 2027".
    private func monthDay(at i: Int) -> DatePart? {
        guard let w = word(i), let month = DateVocabulary.months[w], !DateVocabulary.dayFirstMonths.contains(w) else { return nil }
        var k = i + 1
        if w.count <= 4, isPunctuation(k, ["."]), touches(k) { k += 1 }
        guard let (day, afterDay) = dayOfMonth(at: k, ordinalRequired: false) ?? firstDayOfSpan(at: k) else { return nil }
        return calendarDate(month: month, day: day, yearAt: afterDay)
    }

    /// "14-16" after a month name: a span of days, resolved to its first day.
    private func firstDayOfSpan(at i: Int) -> (Int, Int)? {
        guard let first = token(i)?.number, (1...31).contains(first), isPunctuation(i + 1, ["-", "–"]), touches(i + 1),
              touches(i + 2), let (last, next) = dayOfMonth(at: i + 2, ordinalRequired: false), last > first else { return nil }
        return (first, next)
    }

    /// "14 March", "14th of March", "3rd Sept 2027", and as other languages write them: "14 de febrero",
    /// "11. November", "17 décembre".
    private func dayMonth(at i: Int) -> DatePart? {
        guard let (day, afterDay) = germanDay(at: i) ?? dayOfMonth(at: i, ordinalRequired: false) else { return nil }
        let k = word(afterDay).map(DateVocabulary.dayMonthLinks.contains) == true ? afterDay + 1 : afterDay
        guard let w = word(k), let month = DateVocabulary.months[w] else { return nil }
        var afterMonth = k + 1
        if w.count <= 4, isPunctuation(afterMonth, ["."]), touches(afterMonth) { afterMonth += 1 }
        return calendarDate(month: month, day: day, yearAt: afterMonth)
    }

    /// A day number that no clock mark follows ("12", not "12:30", "12h", "12 Uhr", "12 pm").
    private func isNumberNotTime(_ i: Int) -> Bool {
        guard token(i)?.isNumber == true else { return false }
        if isPunctuation(i + 1, [":", "h"]) { return false }
        if let w = word(i + 1), ["h", "hs", "uhr", "am", "pm", "heures", "horas", "hrs"].contains(w) { return false }
        return true
    }

    /// "11." before a month name, as German writes a day ("11. November"): the day and the index after the period.
    private func germanDay(at i: Int) -> (Int, Int)? {
        guard let t = token(i), t.isNumber, t.text.count <= 2, let day = t.number, (1...31).contains(day),
              isPunctuation(i + 1, ["."]), touches(i + 1), let w = word(i + 2), DateVocabulary.months[w] != nil else { return nil }
        return (day, i + 2)
    }

    /// "the 14th", "the 2nd of June": a day of the month needs "the" and an ordinal suffix.
    /// French and Spanish need no suffix: "le 10", "el 12 de marzo".
    func theNth(at i: Int) -> DatePart? {
        guard let article = word(i), ["the", "le", "el"].contains(article),
              let (day, afterDay) = dayOfMonth(at: i + 1, ordinalRequired: article == "the") else { return nil }
        let k = word(afterDay).map(DateVocabulary.dayMonthLinks.contains) == true ? afterDay + 1 : afterDay
        if k > afterDay || article != "the", let w = word(k), let month = DateVocabulary.months[w] {
            return calendarDate(month: month, day: day, yearAt: k + 1)
        }
        if let w = word(afterDay), DateVocabulary.ordinalNouns.contains(w) { return nil }
        for monthsAhead in 0...12 {
            let index = today.month - 1 + monthsAhead
            let (year, month) = (today.year + index / 12, index % 12 + 1)
            if let date = LocalDate(year: year, month: month, day: day), date >= today {
                return DatePart(date: date, next: afterDay, dayOnly: true)
            }
        }
        return nil
    }

    /// A bare ordinal after a weekday ("Monday 7th", "Friday, 12th"): the next day of the month with that number
    /// on or after the message date that falls on that weekday (within two years); else the next such day.
    private func ordinalDay(at i: Int, weekday: Int, ordinalRequired: Bool = true) -> DatePart? {
        guard let (day, afterDay) = dayOfMonth(at: i, ordinalRequired: ordinalRequired) else { return nil }
        if let w = word(afterDay), DateVocabulary.ordinalNouns.contains(w) { return nil }
        var first: LocalDate?
        for monthsAhead in 0...24 {
            let index = today.month - 1 + monthsAhead
            let (year, month) = (today.year + index / 12, index % 12 + 1)
            guard let date = LocalDate(year: year, month: month, day: day), date >= today else { continue }
            if date.isoWeekday == weekday { return DatePart(date: date, next: afterDay) }
            if first == nil { first = date }
        }
        return first.map { DatePart(date: $0, next: afterDay) }
    }

    /// "12th" alone, in a quoted phrase: the next 12th on or after the message date.
    private func bareOrdinal(at i: Int) -> DatePart? {
        guard i == 0 || word(i - 1) != "the", let (day, afterDay) = dayOfMonth(at: i, ordinalRequired: true) else { return nil }
        if let w = word(afterDay), DateVocabulary.ordinalNouns.contains(w) { return nil }
        for monthsAhead in 0...12 {
            let index = today.month - 1 + monthsAhead
            let (year, month) = (today.year + index / 12, index % 12 + 1)
            if let date = LocalDate(year: year, month: month, day: day), date >= today { return DatePart(date: date, next: afterDay) }
        }
        return nil
    }

    /// "3/14", "3/14/26", "3/14/2026", "2026/3/14" (month first, US style).
    private func numericDate(at i: Int) -> DatePart? {
        guard let a = token(i), a.isNumber, isPunctuation(i + 1, ["/"]), touches(i + 1),
              let b = token(i + 2)?.number, touches(i + 2), let first = a.number else { return nil }
        var next = i + 3
        var third: DateToken?
        if isPunctuation(next, ["/"]), touches(next), let c = token(next + 1), c.isNumber, touches(next + 1) {
            third = c
            next += 2
        }
        guard endsCleanly(before: next) else { return nil }
        if let w = word(next), DateVocabulary.fractionFollowers.contains(w) { return nil }
        if a.text.count == 4 {
            guard let c = third?.number, let date = LocalDate(year: first, month: b, day: c) else { return nil }
            return DatePart(date: date, next: next, yearWritten: true)
        }
        guard a.text.count <= 2, (token(i + 2)?.text.count ?? 0) <= 2 else { return nil }
        if let c = third {
            guard let y = c.number, c.text.count == 2 || c.text.count == 4,
                  let date = LocalDate(year: c.text.count == 2 ? 2000 + y : y, month: first, day: b) else { return nil }
            return DatePart(date: date, next: next, yearWritten: true)
        }
        guard let date = nextOccurrence(month: first, day: b) else { return nil }
        return DatePart(date: date, next: next)
    }

    /// "2026-03-14".
    private func isoDate(at i: Int) -> DatePart? {
        guard let y = token(i), y.isNumber, y.text.count == 4,
              isPunctuation(i + 1, ["-"]), touches(i + 1),
              let m = token(i + 2), m.isNumber, m.text.count == 2, touches(i + 2),
              isPunctuation(i + 3, ["-"]), touches(i + 3),
              let d = token(i + 4), d.isNumber, d.text.count == 2, touches(i + 4),
              endsCleanly(before: i + 5),
              let date = LocalDate(year: y.number!, month: m.number!, day: d.number!) else { return nil }
        return DatePart(date: date, next: i + 5, yearWritten: true)
    }

    /// A day number 1-31 at `i` with an optional (or required) ordinal suffix: (day, next index).
    private func dayOfMonth(at i: Int, ordinalRequired: Bool) -> (Int, Int)? {
        guard let t = token(i), t.isNumber, t.text.count <= 2, let day = t.number, (1...31).contains(day) else { return nil }
        var next = i + 1
        if let suffix = word(next), touches(next), DateVocabulary.ordinalSuffixes.contains(suffix) {
            next += 1
        } else if ordinalRequired {
            return nil
        }
        guard endsCleanly(before: next) else { return nil }
        return (day, next)
    }

    /// Month and day with an optional year at `yearAt` (", 2027" or " 2027"); without a year, the
    /// next occurrence on or after today.
    private func calendarDate(month: Int, day: Int, yearAt k: Int) -> DatePart? {
        let yearIndex = skipping([","], from: k)
        if let t = token(yearIndex), t.isNumber, t.text.count == 4, let year = t.number,
           (1900...2199).contains(year), endsCleanly(before: yearIndex + 1) {
            return LocalDate(year: year, month: month, day: day).map { DatePart(date: $0, next: yearIndex + 1, yearWritten: true) }
        }
        return nextOccurrence(month: month, day: day).map { DatePart(date: $0, next: k) }
    }

    /// The first `month`/`day` on or after today (Feb 29 waits for a leap year).
    private func nextOccurrence(month: Int, day: Int) -> LocalDate? {
        for year in today.year...(today.year + 8) {
            if let date = LocalDate(year: year, month: month, day: day), date >= today { return date }
        }
        return nil
    }
}
