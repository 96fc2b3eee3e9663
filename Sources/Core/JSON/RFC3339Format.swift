
/// RFC 3339 section 5.6 `full-date`, `full-time` and `date-time` (JSON Schema's `format`), checked by Core/Time's
/// codec in its strict grammar: no ISO 8601 variants, no missing offsets, leap seconds only where UTC reads 23:59:60.
enum RFC3339 {
    static func isValid(_ text: String, as format: StringFormat) -> Bool {
        switch format {
        case .dateTime: isDateTime(text)
        // A full-date is the date of a date-time; a full-time is the time of one (a leap second depends on the
        // offset, not the day).
        case .date: text.utf8.count == 10 && isDateTime(text + "T00:00:00Z")
        case .time: isDateTime("2000-01-01T" + text)
        }
    }

    private static func isDateTime(_ text: String) -> Bool {
        if case .success = ISO8601Instant.parse(text, grammar: .rfc3339) { return true }
        return false
    }
}
