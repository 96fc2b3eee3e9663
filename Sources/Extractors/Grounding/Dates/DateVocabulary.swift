/// The words the temporal grammar knows, in one place so additions stay consistent: English, and the weekday and month
/// names of the languages parents most often mix in (Spanish, French, German; month names also Portuguese and Italian).
enum DateVocabulary {
    /// Full weekday names and abbreviations → ISO weekday (1 = Monday).
    static let weekdays: [String: Int] = englishWeekdays.merging(otherWeekdays) { english, _ in english }

    static let englishWeekdays: [String: Int] = [
        "monday": 1, "mon": 1,
        "tuesday": 2, "tue": 2, "tues": 2,
        "wednesday": 3, "wed": 3, "weds": 3,
        "thursday": 4, "thu": 4, "thur": 4, "thurs": 4,
        "friday": 5, "fri": 5,
        "saturday": 6, "sat": 6,
        "sunday": 7, "sun": 7,
    ]

    /// Spanish, French and German weekday names: they write the day of the month without a suffix ("jueves 12").
    static let otherWeekdays: [String: Int] = [
        "lunes": 1, "martes": 2, "miercoles": 3, "miércoles": 3, "jueves": 4, "viernes": 5, "sabado": 6, "sábado": 6, "domingo": 7,
        "lundi": 1, "mardi": 2, "mercredi": 3, "jeudi": 4, "vendredi": 5, "samedi": 6, "dimanche": 7,
        "montag": 1, "dienstag": 2, "mittwoch": 3, "donnerstag": 4, "freitag": 5, "samstag": 6, "sonnabend": 6, "sonntag": 7,
    ]

    /// The English name of each ISO weekday (1 = Monday).
    static let englishNames = [1: "monday", 2: "tuesday", 3: "wednesday", 4: "thursday", 5: "friday", 6: "saturday", 7: "sunday"]

    /// Abbreviations that are also everyday words ("we sat down", "the sun"): accepted only with
    /// supporting context (a qualifier before them, or a date or time right after).
    static let ambiguousWeekdays: Set<String> = ["sat", "sun", "wed", "mon"]

    static let months: [String: Int] = [
        "january": 1, "jan": 1,
        "february": 2, "feb": 2,
        "march": 3, "mar": 3,
        "april": 4, "apr": 4,
        "may": 5,
        "june": 6, "jun": 6,
        "july": 7, "jul": 7,
        "august": 8, "aug": 8,
        "september": 9, "sep": 9, "sept": 9,
        "october": 10, "oct": 10,
        "november": 11, "nov": 11,
        "december": 12, "dec": 12,
        "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
        "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
        "janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "août": 8,
        "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12, "decembre": 12,
        "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "juni": 6, "juli": 7, "oktober": 10, "dezember": 12,
        "janeiro": 1, "fevereiro": 2, "março": 3, "maio": 5, "junho": 6, "julho": 7, "setembro": 9, "outubro": 10,
        "novembro": 11, "dezembro": 12,
        "gennaio": 1, "febbraio": 2, "aprile": 4, "maggio": 5, "giugno": 6, "luglio": 7, "settembre": 9, "ottobre": 10,
        "dicembre": 12,
    ]

    /// Month names that are also everyday English words ("pass the mayo 2 jars", "Mars 2"): read only after a day
    /// number ("14 de mayo", "3 mars"), never before one.
    static let dayFirstMonths: Set<String> = ["mayo", "mars", "mai"]

    /// Words between a day and its month in other languages ("14 de febrero", "3 di maggio"), read like "of".
    static let dayMonthLinks: Set<String> = ["of", "de", "di"]

    static let ordinalSuffixes: Set<String> = ["st", "nd", "rd", "th"]

    /// Small counts written as words ("in two weeks", "at four").
    static let numberWords: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    ]

    /// Nouns after "the 4th" that make it an ordinal rather than a day of the month.
    static let ordinalNouns: Set<String> = [
        "grade", "grader", "graders", "time", "times", "floor", "place", "row", "period", "quarter",
        "inning", "birthday", "anniversary", "century", "street", "st", "avenue", "ave", "round",
        "game", "week", "year", "one", "child", "kid", "son", "daughter", "edition", "class", "hole",
    ]

    /// Words after "1/2" that make it a fraction rather than a month/day.
    static let fractionFollowers: Set<String> = [
        "cup", "cups", "tsp", "tbsp", "teaspoon", "teaspoons", "tablespoon", "tablespoons", "of",
        "inch", "inches", "mile", "miles", "lb", "lbs", "oz", "pound", "pounds", "hour", "hours",
        "price", "off", "day", "days", "gallon", "gallons", "mi", "km",
    ]

    /// Words that change a date's meaning; left unread in a quoted phrase, they make the reading partial.
    static let dateWords: Set<String> = [
        "today", "tonight", "tonite", "tomorrow", "tmrw", "tmr", "tmw", "yesterday", "morning", "afternoon", "evening", "night",
        "noon", "midday", "midnight", "am", "pm", "weekend", "wknd", "week", "wk", "weeks", "month", "months", "year", "fortnight",
        "day", "days", "after", "eod", "end", "o", "oclock",
    ]

    /// Separators between the two ends of a time range.
    static let rangeSeparators: Set<String> = ["-", "–", "—", "to", "until", "till", "til", "through", "thru"]
}
