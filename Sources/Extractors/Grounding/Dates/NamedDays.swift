import Core
import Foundation

/// Where the user's time zone is, for the named days that only one country keeps (Memorial Day, Boxing Day).
enum HolidayRegion: Sendable, Hashable {
    case us, uk, other

    init(timeZone: TimeZone) {
        let id = timeZone.identifier
        if Self.ukZones.contains(id) {
            self = .uk
        } else if id.hasPrefix("US/") || Self.usZones.contains(id)
                    || ["America/Indiana/", "America/Kentucky/", "America/North_Dakota/"].contains(where: id.hasPrefix) {
            self = .us
        } else {
            self = .other
        }
    }

    private static let ukZones: Set<String> = ["Europe/London", "Europe/Belfast", "GB", "GB-Eire"]
    private static let usZones: Set<String> = [
        "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Phoenix",
        "America/Anchorage", "America/Adak", "America/Boise", "America/Detroit", "America/Juneau", "America/Menominee",
        "America/Metlakatla", "America/Nome", "America/Sitka", "America/Yakutat", "Pacific/Honolulu", "EST5EDT",
        "CST6CDT", "MST7MDT", "PST8PDT",
    ]
}

/// Days parents call by name ("Christmas Eve", "Thanksgiving", "the August bank holiday"), each resolved as the
/// next occurrence on or after the message date. Country-specific days are only read in their country's zones;
/// elsewhere the words are left unread, so the date policy keeps the model's date.
struct NamedDay: Sendable {
    /// Word sequences, lower-cased; a possessive ("New Year's") and a plural "s" are accepted on any word.
    let names: [[String]]
    /// Nil: read in every zone.
    let region: HolidayRegion?
    /// The day in a given year.
    let date: @Sendable (Int) -> LocalDate?

    static let all: [NamedDay] = [
        fixed([["new", "year", "eve"], ["nye"]], month: 12, day: 31),
        fixed([["new", "year", "day"], ["new", "year"]], month: 1, day: 1),
        fixed([["valentine", "day"], ["st", "valentine", "day"], ["saint", "valentine", "day"]], month: 2, day: 14),
        fixed([["halloween"]], month: 10, day: 31),
        fixed([["christmas", "eve"], ["xmas", "eve"]], month: 12, day: 24),
        fixed([["christmas", "day"], ["xmas", "day"], ["christmas"], ["xmas"]], month: 12, day: 25),
        fixed([["independence", "day"], ["fourth", "of", "july"]], month: 7, day: 4),
        NamedDay(names: [["thanksgiving", "day"], ["thanksgiving"]], region: nil) { nth(4, weekday: 4, month: 11, year: $0) },
        NamedDay(names: [["easter", "sunday"], ["easter", "day"], ["easter"]], region: nil) { easter($0) },
        // United States.
        NamedDay(names: [["mother", "day"]], region: .us) { nth(2, weekday: 7, month: 5, year: $0) },
        NamedDay(names: [["father", "day"]], region: .us) { nth(3, weekday: 7, month: 6, year: $0) },
        NamedDay(names: [["memorial", "day"]], region: .us) { last(weekday: 1, month: 5, year: $0) },
        NamedDay(names: [["labor", "day"]], region: .us) { nth(1, weekday: 1, month: 9, year: $0) },
        // United Kingdom (England and Wales bank holidays, by their usual names).
        NamedDay(names: [["mother", "day"], ["mothering", "sunday"]], region: .uk) { easter($0)?.adding(days: -21) },
        NamedDay(names: [["father", "day"]], region: .uk) { nth(3, weekday: 7, month: 6, year: $0) },
        NamedDay(names: [["good", "friday"]], region: .uk) { easter($0)?.adding(days: -2) },
        NamedDay(names: [["easter", "monday"]], region: .uk) { easter($0)?.adding(days: 1) },
        NamedDay(names: [["early", "may", "bank", "holiday"], ["may", "bank", "holiday"], ["may", "day", "bank", "holiday"]],
                 region: .uk) { nth(1, weekday: 1, month: 5, year: $0) },
        NamedDay(names: [["spring", "bank", "holiday"]], region: .uk) { last(weekday: 1, month: 5, year: $0) },
        NamedDay(names: [["summer", "bank", "holiday"], ["august", "bank", "holiday"]], region: .uk) {
            last(weekday: 1, month: 8, year: $0)
        },
        fixed([["boxing", "day"]], month: 12, day: 26, region: .uk),
    ]

    /// Every word of every name, for the date policy's "date-like words left over" check.
    static let words: Set<String> = Set(all.flatMap { $0.names.joined() }).subtracting(["of", "day", "st", "saint", "may", "august"])

    /// Single-word names followed by one of these nouns are adjectives ("the Christmas concert", "Halloween
    /// costumes"), not the day itself.
    static let adjectiveFollowers: Set<String> = [
        "party", "parties", "concert", "concerts", "play", "show", "shows", "fair", "fayre", "market", "dinner", "lunch",
        "card", "cards", "costume", "costumes", "parade", "break", "holiday", "holidays", "vacation", "lights", "tree",
        "trees", "shopping", "list", "movie", "movies", "songs", "carols", "jumper", "jumpers", "sweater", "sweaters",
        "decorations", "gift", "gifts", "presents", "hunt", "egg", "eggs", "bake", "sale", "disco", "dance", "event",
        "events", "theme", "themed", "week", "weekend", "term", "service", "assembly", "performance", "recital",
        "candy", "treats", "crafts", "menu", "plans", "food", "outfit", "outfits", "photos", "pictures", "pics",
    ]

    private static func fixed(_ names: [[String]], month: Int, day: Int, region: HolidayRegion? = nil) -> NamedDay {
        NamedDay(names: names, region: region) { LocalDate(year: $0, month: month, day: day) }
    }

    /// The `n`th ISO `weekday` of a month.
    static func nth(_ n: Int, weekday: Int, month: Int, year: Int) -> LocalDate? {
        guard let first = LocalDate(year: year, month: month, day: 1) else { return nil }
        return first.adding(days: (weekday - first.isoWeekday + 7) % 7 + 7 * (n - 1))
    }

    /// The last ISO `weekday` of a month.
    static func last(weekday: Int, month: Int, year: Int) -> LocalDate? {
        guard let end = LocalDate(year: year, month: month, day: LocalDate.daysInMonth(year: year, month: month)) else { return nil }
        return end.adding(days: -((end.isoWeekday - weekday + 7) % 7))
    }

    /// Western Easter Sunday (the anonymous Gregorian algorithm).
    static func easter(_ year: Int) -> LocalDate? {
        let a = year % 19, b = year / 100, c = year % 100, d = b / 4, e = b % 4
        let f = (b + 8) / 25, g = (b - f + 1) / 3, h = (19 * a + b - d - g + 15) % 30
        let i = c / 4, k = c % 4, l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return LocalDate(year: year, month: month, day: day)
    }
}

extension TemporalGrammar {
    /// A named day at `i` ("Christmas Eve", "New Year's Day", "Memorial Day" in a US zone): the next occurrence on
    /// or after the message date.
    func namedDay(at i: Int) -> DatePart? {
        var best: (day: NamedDay, next: Int, length: Int)?
        for named in NamedDay.all where named.region == nil || named.region == region {
            for name in named.names {
                guard let next = matchName(name, at: i), name.count > (best?.length ?? 0) else { continue }
                if name.count == 1, let follower = word(next), NamedDay.adjectiveFollowers.contains(follower) { continue }
                best = (named, next, name.count)
            }
        }
        guard let best else { return nil }
        for year in today.year...(today.year + 1) {
            if let date = best.day.date(year), date >= today { return DatePart(date: date, next: best.next) }
        }
        return nil
    }

    /// The index after `name` when its words start at `i`, skipping possessives ("year's", "years", "year’s").
    private func matchName(_ name: [String], at i: Int) -> Int? {
        var k = i
        for part in name {
            guard let w = word(k), w == part || w == part + "s" else { return nil }
            k += 1
            if isPunctuation(k, ["'", "’"]), touches(k), word(k + 1) == "s", touches(k + 1) {
                k += 2
            } else if isPunctuation(k, ["'", "’"]), touches(k), w.hasSuffix("s") {
                k += 1  // "parents'" style
            }
        }
        return k
    }
}
