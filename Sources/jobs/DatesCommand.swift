import ArgumentParser
import JobsKit
import Core
import Extractors
import Foundation
import JobsCLI

/// `messageai-jobs dates`: shows what the temporal resolver makes of a text, the same code the
/// extractors use to turn the model's quoted phrases into dates.
struct DatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dates",
        abstract: "Find and resolve date and time expressions in a text, relative to when it was sent.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs dates <text> [--reference <reference>] [<options>]",
        discussion: """
            Conventions: a bare or "this" weekday is the next such day on or after the message date \
            (the same weekday is that day); "next <weekday>" is that weekday in the following \
            Monday-to-Sunday week; a month-day or "the Nth" without a year is the next occurrence on \
            or after the message date, but a weekday written with it ("Wednesday, November 25") picks the \
            occurrence on that weekday nearest the message date, past or future (a conflict is flagged); an hour without am/pm is afternoon from 1 to 7, morning \
            otherwise; "this weekend" is the coming Saturday; "end of the month" is its last day; \
            today and tonight are the message date (day grain); a time alone is on the message date.

            DST: a wall time skipped by spring-forward moves forward by the gap; a repeated one \
            takes the first (daylight) occurrence. Both are flagged.

            Examples:
              messageai-jobs dates "next Friday at 4pm"   # sent now, in $MESSAGEAI_TIMEZONE (else UTC)
              messageai-jobs dates "next Friday at 4pm" --reference 2026-03-02T10:00:00-05:00 --timezone America/New_York
            """
    )

    @Argument(help: "The message text.")
    var text: String

    @Option(help: "When the message was sent: ISO 8601 with Z or an offset, e.g. 2026-03-02T10:00:00-05:00 (default: now).")
    var reference: String?

    @Option(help: "The user's IANA time zone, e.g. America/New_York (default: $MESSAGEAI_TIMEZONE, else UTC).")
    var timezone: String?

    @Flag(help: "Print {\"expressions\":[{\"text\",\"start\",\"grain\",...}]} on stdout instead of text.")
    var json = false

    func validate() throws {
        _ = try referenceInstant()
        _ = try timeZone()
    }

    func run() throws {
        let resolver = TemporalResolver(timeZone: try timeZone())
        let expressions = resolver.resolve(text, reference: try referenceInstant())
        if json {
            Console.print(JSONValue.object(["expressions": .array(expressions.map(Self.json))]).serialized())
        } else if expressions.isEmpty {
            Console.print("no date or time expressions found")
        } else {
            for expression in expressions { Console.print(Self.line(expression)) }
        }
    }

    private func referenceInstant() throws -> Date {
        guard let reference else { return Date() }
        do {
            return try ReferenceInstant.parse(reference)
        } catch {
            throw ValidationError("--reference: \(error)")
        }
    }

    /// The option, else the deployment's default zone (`MESSAGEAI_TIMEZONE`, else UTC), as the other commands read it.
    private func timeZone() throws -> TimeZone {
        do {
            return try UserTimeZonePolicy.deployment(option: timezone, environment: ProcessEnvironment.values).fallback
        } catch {
            throw ValidationError("\(error)")
        }
    }

    static func line(_ e: TemporalExpression) -> String {
        var notes = [e.grain.rawValue]
        if e.isDeadline { notes.append("deadline") }
        if let adjustment = e.wallTimeAdjustment { notes.append(describe(adjustment)) }
        if let weekday = e.weekdayConflict { notes.append(conflict(weekday, e.date)) }
        let end = e.endISO.map { " to \($0)" } ?? ""
        return "\"\(e.text)\" → \(e.startISO)\(end) (\(notes.joined(separator: ", ")))"
    }

    static func json(_ e: TemporalExpression) -> JSONValue {
        var object: JSONObject = ["text": .string(e.text), "start": .string(e.startISO), "grain": .string(e.grain.rawValue)]
        if let end = e.endISO { object["end"] = .string(end) }
        object["deadline"] = .bool(e.isDeadline)
        if let adjustment = e.wallTimeAdjustment { object["adjustment"] = .string(describe(adjustment)) }
        if let weekday = e.weekdayConflict { object["weekday_conflict"] = .string(conflict(weekday, e.date)) }
        return .object(object)
    }

    static func conflict(_ weekday: Int, _ date: LocalDate) -> String {
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        return "written \(names[weekday - 1]) but \(date.iso) is a \(date.weekdayName)"
    }

    static func describe(_ adjustment: WallTimeAdjustment) -> String {
        switch adjustment {
        case .skippedForward(let minutes): "nonexistent wall time, moved forward \(minutes) min"
        case .ambiguousFirstOccurrence: "repeated wall time, first occurrence"
        }
    }
}
