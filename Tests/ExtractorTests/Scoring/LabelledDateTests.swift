import Core
import Foundation
import Testing
@testable import Extractors

/// Recomputes every labelled date and time from the `# date` / `# time` comments in the fixtures
/// with the documented conventions (evals/fixtures/README.md), so a mislabelled weekday fails here.
@Suite("Labelled dates follow the conventions")
struct LabelledDateTests {
    struct Check {
        let kind: String, path: String, phrase: String, message: String?
    }

    static func checks(in text: String) -> [Check] {
        let pattern = /#\s*(date|time)\s+([\w\[\].]+):\s*"([^"]+)"(?:\s*@([\w-]+))?/
        return text.split(separator: "\n").compactMap { line in
            guard let m = line.firstMatch(of: pattern) else { return nil }
            return Check(kind: String(m.1), path: String(m.2), phrase: String(m.3), message: m.4.map(String.init))
        }
    }

    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                         "september", "october", "november", "december"]

    /// The conventions: weekday on/after; "next" = following Monday-to-Sunday week; day or month-day
    /// = next occurrence on/after; "this weekend" = coming Saturday; "end of the month" = last day.
    static func resolve(_ phrase: String, from base: LocalDate) -> LocalDate? {
        let words = normalized(phrase)
        func weekday(_ name: String) -> Int? { weekdays.firstIndex(of: name).map { $0 + 1 } }
        func onOrAfter(_ iso: Int) -> LocalDate { base.adding(days: (iso - base.isoWeekday + 7) % 7) }
        func ordinal(_ word: String) -> Int? { Int(word.prefix { $0.isNumber }) }
        func nthDay(_ n: Int) -> LocalDate? {
            var (y, m) = (base.year, base.month)
            for _ in 0..<13 {
                if let d = LocalDate(year: y, month: m, day: n), d >= base { return d }
                (y, m) = m == 12 ? (y + 1, 1) : (y, m + 1)
            }
            return nil
        }
        func checked(_ date: LocalDate?, weekdayWord: String?) -> LocalDate? {
            guard let date else { return nil }
            if let weekdayWord { return weekday(weekdayWord) == date.isoWeekday ? date : nil }
            return date
        }
        switch words {
        case ["today"]: return base
        case ["tomorrow"]: return base.adding(days: 1)
        case ["this", "weekend"]: return onOrAfter(6)
        case ["end", "of", "the", "month"]:
            return LocalDate(year: base.year, month: base.month, day: LocalDate.daysInMonth(year: base.year, month: base.month))
        case let w where w.count == 2 && w[0] == "next" && weekday(w[1]) != nil:
            return base.adding(days: 8 - base.isoWeekday + weekday(w[1])! - 1)
        case let w where w.count == 1 && weekday(w[0]) != nil: return onOrAfter(weekday(w[0])!)
        case let w where w.count == 2 && w[0] == "this" && weekday(w[1]) != nil: return onOrAfter(weekday(w[1])!)
        case let w where w.count >= 2 && w[w.count - 2] == "the" && ordinal(w[w.count - 1]) != nil:
            return checked(nthDay(ordinal(w[w.count - 1])!), weekdayWord: w.count == 3 ? w[0] : nil)
        case let w where w.count >= 2 && months.contains(w[w.count - 2]) && ordinal(w[w.count - 1]) != nil:
            let month = months.firstIndex(of: w[w.count - 2])! + 1
            let day = ordinal(w[w.count - 1])!
            guard let thisYear = LocalDate(year: base.year, month: month, day: day) else { return nil }
            let date = thisYear >= base ? thisYear : LocalDate(year: base.year + 1, month: month, day: day)
            return checked(date, weekdayWord: w.count == 3 ? w[0] : nil)
        default: return nil
        }
    }

    /// Chats write dates in other languages, abbreviated and day-first ("sábado 14 de febrero", "Freitag, 6. November",
    /// "Sat Oct 17", "Tuesday 29th September"): the same conventions apply, so the words are put in the English,
    /// month-first shape the cases below read ("saturday february 14").
    static let synonyms: [String: String] = {
        var map: [String: String] = ["tmrw": "tomorrow", "tmw": "tomorrow", "nächsten": "next", "le": "the"]
        let days = [["mon", "lundi", "lunes", "montag"], ["tue", "tues", "mardi", "martes", "dienstag"],
                    ["wed", "mercredi", "miércoles", "mittwoch"], ["thu", "thur", "thurs", "jeudi", "jueves", "donnerstag"],
                    ["fri", "vendredi", "viernes", "freitag"], ["sat", "samedi", "sábado", "samstag"],
                    ["sun", "dimanche", "domingo", "sonntag"]]
        for (i, names) in days.enumerated() { for name in names { map[name] = weekdays[i] } }
        let monthNames = [["jan", "janvier", "enero", "januar"], ["feb", "février", "febrero", "februar"],
                          ["mar", "mars", "marzo", "märz"], ["apr", "avril", "abril"], ["mai", "mayo"],
                          ["jun", "juin", "junio", "juni"], ["jul", "juillet", "julio", "juli"], ["aug", "août", "agosto"],
                          ["sep", "sept", "septembre", "septiembre"], ["oct", "octobre", "octubre", "oktober"],
                          ["nov", "novembre", "noviembre"], ["dec", "décembre", "diciembre", "dezember"]]
        for (i, names) in monthNames.enumerated() { for name in names { map[name] = months[i] } }
        return map
    }()

    static func normalized(_ phrase: String) -> [String] {
        var words = phrase.lowercased().split(separator: " ")
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".,")) }
            .filter { !$0.isEmpty && $0 != "de" }
            .map { synonyms[$0] ?? $0 }
        func isDay(_ word: String) -> Bool { word.first?.isNumber == true }
        // Day-first: "14 february" → "february 14".
        if words.count >= 2, isDay(words[words.count - 2]), months.contains(words[words.count - 1]) {
            words.swapAt(words.count - 2, words.count - 1)
        }
        // "saturday 14th" → "saturday the 14th".
        if words.count == 2, weekdays.contains(words[0]), isDay(words[1]) { words.insert("the", at: 1) }
        return words
    }

    /// "at 7" → 19:00, "8" → 08:00, "2pm" → 14:00, "6 in the morning" → 06:00; "noon" → 12:00; "18h30", "17 Uhr",
    /// "9 baje" (Hindi: o'clock) read as the hour they name; a range "1-4" by its start.
    static func resolveTime(_ phrase: String) -> LocalTime? {
        var text = phrase.lowercased().replacingOccurrences(of: "at ", with: "")
        if text == "noon" { return LocalTime(hour: 12, minute: 0) }
        if let m = text.wholeMatch(of: /(\d{1,2})h(\d{2})?/) { return LocalTime(hour: Int(m.1)!, minute: m.2.map { Int($0)! } ?? 0) }
        for suffix in [" uhr", " baje"] where text.hasSuffix(suffix) { text = String(text.dropLast(suffix.count)) }
        if let m = text.wholeMatch(of: /(\d{1,2})-\d{1,2}/) { text = String(m.1) }
        var suffix: String?
        for s in ["in the morning", "am", "pm"] where text.hasSuffix(s) {
            suffix = s == "pm" ? "pm" : "am"
            text = String(text.dropLast(s.count)).trimmingCharacters(in: .whitespaces)
        }
        let parts = text.split(separator: ":")
        guard let h = Int(parts[0]) else { return nil }
        let minute = parts.count > 1 ? Int(parts[1]) ?? -1 : 0
        let hour = switch suffix {
        case "pm": h == 12 ? 12 : h + 12
        case "am": h == 12 ? 0 : h
        default: (1...7).contains(h) ? h + 12 : h
        }
        return LocalTime(hour: hour, minute: minute)
    }

    static func value(at path: String, in root: JSONValue) -> JSONValue? {
        var current: JSONValue? = root
        for part in path.split(separator: ".") {
            let name = part.prefix { $0 != "[" }
            if !name.isEmpty { current = current?[String(name)] }
            for index in part.matches(of: /\[(\d+)\]/) { current = current?[Int(index.1)!] }
        }
        return current
    }

    @Test func everyLabelledDateAndTimeMatchesItsPhrase() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures).filter { $0.hasSuffix(".yaml") }.sorted()
        var checked = 0
        for name in names {
            let file = TestPaths.fixtures + "/" + name
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let fixture = try FixtureLoader.parse(text, file: file)
            let zone = try #require(TimeZone(identifier: fixture.reference.timezone))
            let expected = try JSONValue.encode(fixture.expected)
            let checks = Self.checks(in: text)
            for check in checks {
                let labelled = Self.value(at: check.path, in: expected)?.stringValue
                let computed: String?
                if check.kind == "date" {
                    let message = fixture.messages.first { $0.id == check.message }
                    let base = try #require(message, "\(name): \(check.path) cites unknown message").sentAt.localDate(in: zone)
                    computed = Self.resolve(check.phrase, from: base)?.iso
                } else {
                    computed = Self.resolveTime(check.phrase)?.iso
                }
                #expect(computed != nil && computed == labelled,
                        "\(name): \(check.path) is \(labelled ?? "missing"), '\(check.phrase)' gives \(computed ?? "nothing")")
                checked += 1
            }
            // Every labelled date and time has a check.
            let labelledCount = fixture.expected.calendarEvents.count + fixture.expected.calendarEvents.count { $0.time != nil }
                + fixture.expected.deadlines.count + fixture.expected.rsvps.count + fixture.expected.rsvps.count { $0.deadline != nil }
            #expect(checks.count == labelledCount, "\(name): \(checks.count) checks for \(labelledCount) labelled dates/times")
        }
        #expect(checked > 100)
    }

    @Test func resolverFollowsTheConventions() {
        let sunday = LocalDate(year: 2026, month: 3, day: 15)!
        let monday = LocalDate(year: 2026, month: 3, day: 16)!
        #expect(Self.resolve("next Monday", from: sunday)?.iso == "2026-03-16")
        #expect(Self.resolve("next Monday", from: monday)?.iso == "2026-03-23")
        #expect(Self.resolve("Monday", from: monday)?.iso == "2026-03-16")
        #expect(Self.resolve("the 2nd", from: LocalDate(year: 2026, month: 12, day: 28)!)?.iso == "2027-01-02")
        #expect(Self.resolve("saturday the 22nd", from: monday) == nil)  // the 22nd is a Sunday
        #expect(Self.resolve("this weekend", from: sunday)?.iso == "2026-03-21")
        #expect(Self.resolveTime("at 7")?.iso == "19:00")
        #expect(Self.resolveTime("12")?.iso == "12:00")
        #expect(Self.resolveTime("8:45am")?.iso == "08:45")
    }
}
