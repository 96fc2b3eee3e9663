/// The English words the temporal grammar knows, in one place so additions stay consistent.
enum DateVocabulary {
    /// Full weekday names and abbreviations → ISO weekday (1 = Monday).
    static let weekdays: [String: Int] = [
        "monday": 1, "mon": 1,
        "tuesday": 2, "tue": 2, "tues": 2,
        "wednesday": 3, "wed": 3, "weds": 3,
        "thursday": 4, "thu": 4, "thur": 4, "thurs": 4,
        "friday": 5, "fri": 5,
        "saturday": 6, "sat": 6,
        "sunday": 7, "sun": 7,
    ]

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
    ]

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
