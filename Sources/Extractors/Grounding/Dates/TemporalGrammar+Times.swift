/// Time forms: "4pm", "4:30", "9:15 a.m.", "noon", "midnight", "at 4", "4 o'clock", and ranges
/// ("2-4pm", "from 2 to 4", "between 3 and 5").
extension TemporalGrammar {
    private enum Lead { case none, at, from, between }

    /// Words after a bare "at N" that make N a count, not a time ("at 3 schools").
    private static let countNouns: Set<String> = [
        "kids", "children", "people", "schools", "places", "locations", "stores", "of", "percent",
        "points", "years", "months", "weeks", "days", "hours", "minutes", "times", "games", "teams",
        "dollars", "bucks", "miles", "different", "separate", "other", "more", "or",
    ]

    /// A time or range at `i`. After a date, a range of bare hours is accepted ("Saturday 2-4").
    func timePart(at i: Int, afterDate: Bool) -> TimePart? {
        var k = i
        var lead = Lead.none
        switch token(i)?.lower {
        case "at", "@":
            lead = .at
            k += 1
            if ["around", "about"].contains(word(k)) { k += 1 }
        case "from": lead = .from; k += 1
        case "between": lead = .between; k += 1
        default: break
        }
        guard let (start, afterStart, startBare) = clock(at: k, allowWords: lead != .none) else { return nil }

        let separatorText = token(afterStart)?.lower ?? ""
        let separates = DateVocabulary.rangeSeparators.contains(separatorText) || (lead == .between && separatorText == "and")
        if separates, let (end, afterEnd, endBare) = clock(at: afterStart + 1, allowWords: lead != .none) {
            let barePair = startBare && endBare
            let countFollows = word(afterEnd).map(Self.countNouns.contains) ?? false
            if !barePair || ((lead != .none || afterDate) && !countFollows),
               ClockSpec.resolveRange(start: start, end: end, period: nil) != nil {
                let period = trailingPeriod(at: afterEnd)
                return TimePart(start: start, end: end, next: period?.next ?? afterEnd, period: period?.period)
            }
        }
        // A lone time: "at 3-2" or "at 12-345" are not times.
        if isPunctuation(afterStart, ["-", "–"]), touches(afterStart), token(afterStart + 1)?.isNumber == true { return nil }
        if lead == .between { return nil }
        let period = trailingPeriod(at: afterStart)
        if startBare, period == nil {
            guard lead == .at || lead == .from else { return nil }
            if let w = word(afterStart), Self.countNouns.contains(w) { return nil }
        }
        guard start.resolved(period: nil) != nil else { return nil }
        return TimePart(start: start, end: nil, next: period?.next ?? afterStart, period: period?.period)
    }

    /// "in the morning", "in the afternoon", "in the evening", "at night", "in the night" after a time.
    private func trailingPeriod(at i: Int) -> (period: DayPeriod, next: Int)? {
        if word(i) == "at", word(i + 1) == "night" { return (.evening, i + 2) }
        guard word(i) == "in", word(i + 1) == "the" else { return nil }
        switch word(i + 2) {
        case "morning": return (.morning, i + 3)
        case "afternoon": return (.afternoon, i + 3)
        case "evening", "night": return (.evening, i + 3)
        default: return nil
        }
    }

    /// The index after an "-ish" / "ish" glued to a time ("6am-ish", "6ish"), or `i` when there is none.
    private func ishSuffix(at i: Int) -> Int {
        if word(i) == "ish", touches(i) { return i + 1 }
        if isPunctuation(i, ["-", "–"]), touches(i), word(i + 1) == "ish", touches(i + 1) { return i + 2 }
        return i
    }

    /// One clock time at `i`: (spec, next index, bare), where bare means a plain hour with no
    /// minutes, am/pm or "o'clock" (it needs "at" or a range to count as a time).
    private func clock(at i: Int, allowWords: Bool) -> (ClockSpec, Int, Bool)? {
        guard let t = token(i) else { return nil }
        switch t.lower {
        case "noon", "midday": return (.noon, i + 1, false)
        case "midnight": return (.midnight, i + 1, false)
        default: break
        }
        var spec: ClockSpec
        var k = i + 1
        var bare = true
        if t.isNumber {
            guard t.text.count <= 2, let hour = t.number, hour <= 23 else { return nil }
            spec = ClockSpec(hour: hour)
            spec.explicit24h = (t.text.count == 2 && t.text.hasPrefix("0")) || hour == 0 || hour > 12
            if isPunctuation(k, [":"]), touches(k), let m = token(k + 1), m.isNumber, touches(k + 1),
               m.text.count == 2, let minute = m.number, minute < 60 {
                spec.minute = minute
                k += 2
                bare = false
            }
            k = ishSuffix(at: k)
        } else if allowWords, let w = word(i), let hour = DateVocabulary.numberWords[w] {
            spec = ClockSpec(hour: hour)
        } else {
            return nil
        }
        if let (meridiem, afterMeridiem) = meridiem(at: k) {
            guard (1...12).contains(spec.hour) else { return nil }
            spec.meridiem = meridiem
            spec.explicit24h = false
            let afterIsh = ishSuffix(at: afterMeridiem)
            return endsCleanly(before: afterIsh, allowDash: true) ? (spec, afterIsh, false) : nil
        }
        if spec.hour == 12, spec.minute == 0 {
            switch word(k) {
            case "noon": return (.noon, k + 1, false)
            case "midnight": return (.midnight, k + 1, false)
            default: break
            }
        }
        if let afterOclock = oclock(at: k) { return (spec, afterOclock, false) }
        guard !t.isNumber || endsCleanly(before: k, allowDash: true) else { return nil }
        return (spec, k, bare)
    }

    /// "pm", "PM", "p.m.", "p.m", glued "4p"/"4a": (meridiem, next index).
    private func meridiem(at i: Int) -> (Meridiem, Int)? {
        guard let w = word(i) else { return nil }
        switch w {
        case "am": return (.am, i + 1)
        case "pm": return (.pm, i + 1)
        case "a", "p":
            let value: Meridiem = w == "a" ? .am : .pm
            if isPunctuation(i + 1, ["."]), touches(i + 1), word(i + 2) == "m", touches(i + 2) {
                let afterM = i + 3
                return (value, isPunctuation(afterM, ["."]) && touches(afterM) ? afterM + 1 : afterM)
            }
            return touches(i) ? (value, i + 1) : nil
        default: return nil
        }
    }

    /// "o'clock", "o’clock", "oclock": the index after it.
    private func oclock(at i: Int) -> Int? {
        if word(i) == "oclock" { return i + 1 }
        guard word(i) == "o", isPunctuation(i + 1, ["'", "’"]), word(i + 2) == "clock" else { return nil }
        return i + 3
    }
}
