import AgentRuntime
package import Core
import Foundation

/// `check_conflicts`: whether an event (existing or proposed) conflicts with the user's other events, or, with nothing
/// given, every conflicting pair in the next two weeks, by the one rule the nightly findings use too
/// (`ScheduleConflicts`: overlap, all-day, travel), on real instants in the user's zone.
package struct CheckConflictsTool: AgentTool {
    package struct Arguments: Decodable, Sendable {
        package let event_id: String?
        package let date: String?
        package let start_time: String?
        package let end_time: String?
    }

    let context: ToolContext
    package init(context: ToolContext) { self.context = context }

    /// How far ahead the "find all conflicts" mode looks.
    static let scanDays = 14
    static let maxPairs = 50

    package let name = "check_conflicts"
    package let description = """
        Find scheduling conflicts among the user's calendar events. Three modes: (1) event_id set, others null: \
        conflicts of that existing event; (2) event_id null, date set (start_time/end_time optional, no start_time \
        = all-day): conflicts of a proposed event; (3) everything null: every conflicting pair among events of the \
        next 14 days. Each conflict has a type: overlap (two timed events share time; ending exactly when another \
        starts is none), all_day (a timed event on the day of an all-day event; two all-day events never conflict), \
        travel (no overlap, but too little time between two events at different known places). Events without an \
        end last 60 minutes.
        """
    package var parametersSchema: JSONValue {
        ToolSchema.object([
            ("event_id", ToolSchema.string("Id of an existing event (from get_upcoming_events), or null.", nullable: true)),
            ("date", ToolSchema.string("Date of a proposed event, YYYY-MM-DD, or null.", nullable: true)),
            ("start_time", ToolSchema.string("Start of the proposed event, HH:MM (24-hour, user's time zone), or null for all-day.", nullable: true)),
            ("end_time", ToolSchema.string("End of the proposed event, HH:MM, or null (60 minutes assumed).", nullable: true)),
        ])
    }

    package func run(_ arguments: Arguments) async throws -> JSONValue {
        switch (arguments.event_id, arguments.date) {
        case (let id?, nil):
            guard arguments.start_time == nil, arguments.end_time == nil else {
                throw ToolError.invalidArgument(field: "start_time", reason: "start_time and end_time must be null when event_id is given")
            }
            return try await conflicts(ofEventID: id)
        case (nil, let date?):
            return try await conflicts(ofProposalOn: date, start: arguments.start_time, end: arguments.end_time)
        case (nil, nil):
            guard arguments.start_time == nil, arguments.end_time == nil else {
                throw ToolError.invalidArgument(field: "date", reason: "start_time/end_time need a date")
            }
            return try await allConflicts()
        case (_?, _?):
            throw ToolError.invalidArgument(field: "event_id", reason: "give either event_id or date, not both")
        }
    }

    private func conflicts(ofEventID text: String) async throws -> JSONValue {
        let id = try parseID(text, field: "event_id")
        guard let event = try await EventRecord.visible(in: context, id: id) else {
            throw ToolError.notFound(kind: "event", field: "event_id", id: text)
        }
        let interval = event.interval(in: context.timeZone)
        let nearby = try await neighbours(of: event.date)
        let found = context.conflicts.conflicts(of: entry(event), among: nearby.map(entry))
        let byID = Dictionary(nearby.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return [
            "event": event.json,
            "interval": intervalJSON(interval),
            "conflicts": .array(found.compactMap { conflict in byID[conflict.second].map { conflictJSON($0, conflict) } }),
            "conflict_count": .int(found.count),
        ]
    }

    private func conflicts(ofProposalOn dateText: String, start: String?, end: String?) async throws -> JSONValue {
        guard let date = LocalDate(iso: dateText.trimmingCharacters(in: .whitespaces)) else {
            throw ToolError.invalidArgument(field: "date", reason: "'\(Bounds.truncate(dateText, to: 40))' is not a YYYY-MM-DD date")
        }
        let startTime = try start.map { try parseTime($0, field: "start_time") }
        let endTime = try end.map { try parseTime($0, field: "end_time") }
        if startTime == nil, endTime != nil {
            throw ToolError.invalidArgument(field: "end_time", reason: "an end_time needs a start_time (leave both null for an all-day event)")
        }
        let interval = EventInterval(date: date, time: startTime, endTime: endTime, in: context.timeZone)
        let proposal = UUID()
        let nearby = try await neighbours(of: date)
        let found = context.conflicts.conflicts(of: .init(key: proposal, interval: interval, allDay: startTime == nil),
                                                among: nearby.map(entry))
        let byID = Dictionary(nearby.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return [
            "proposed": ["date": .date(date), "start_time": .time(startTime), "end_time": .time(endTime)],
            "interval": intervalJSON(interval),
            "conflicts": .array(found.compactMap { conflict in byID[conflict.second].map { conflictJSON($0, conflict) } }),
            "conflict_count": .int(found.count),
        ]
    }

    private func allConflicts() async throws -> JSONValue {
        let from = context.today
        let through = from.adding(days: Self.scanDays)
        let events = try await EventRecord.visible(in: context, from: from, through: through)
        let byID = Dictionary(events.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let pairs = context.conflicts.allConflicts(among: events.map(entry))
        let shown = pairs.prefix(Self.maxPairs)
        return [
            "from": .date(from),
            "through": .date(through),
            "events_checked": .int(events.count),
            "pairs": .array(shown.compactMap { pair -> JSONValue? in
                guard let first = byID[pair.first], let second = byID[pair.second] else { return nil }
                var object: JSONObject = ["first": first.json, "second": second.json]
                for (key, value) in timing(pair) { object[key] = value }
                return .object(object)
            }),
            "pair_count": .int(pairs.count),
            "truncated": .bool(pairs.count > shown.count),
        ]
    }

    /// Events that could overlap something on `date`: that day and the days either side (overnight events).
    private func neighbours(of date: LocalDate) async throws -> [EventRecord] {
        try await EventRecord.visible(in: context, from: date.adding(days: -1), through: date.adding(days: 1))
    }

    private func parseTime(_ text: String, field: String) throws -> LocalTime {
        guard let time = LocalTime(iso: text.trimmingCharacters(in: .whitespaces)) else {
            throw ToolError.invalidArgument(field: field, reason: "'\(Bounds.truncate(text, to: 40))' is not an HH:MM time")
        }
        return time
    }

    private func intervalJSON(_ interval: EventInterval) -> JSONValue {
        [
            "start": .string(ISO8601Instant.string(interval.start, in: context.timeZone, style: .numericOffset)),
            "end": .string(ISO8601Instant.string(interval.end, in: context.timeZone, style: .numericOffset)),
        ]
    }

    private func entry(_ event: EventRecord) -> ScheduleConflicts.Entry<UUID> {
        .init(key: event.id, interval: event.interval(in: context.timeZone), allDay: event.time == nil, title: event.title,
              place: event.location, item: event.item)
    }

    private func conflictJSON(_ event: EventRecord, _ conflict: ScheduleConflicts.Conflict<UUID>) -> JSONValue {
        var object = event.json.objectValue ?? [:]
        for (key, value) in timing(conflict) { object[key] = value }
        return .object(object)
    }

    /// The conflict's type and the time the two share (overlap, all_day) or the time between them (travel).
    private func timing(_ conflict: ScheduleConflicts.Conflict<UUID>) -> JSONObject {
        var object: JSONObject = ["type": .string(conflict.kind.rawValue)]
        if let overlap = conflict.overlap {
            object["overlap_start"] = .string(ISO8601Instant.string(overlap.start, in: context.timeZone, style: .numericOffset))
            object["overlap_end"] = .string(ISO8601Instant.string(overlap.end, in: context.timeZone, style: .numericOffset))
            object["overlap_minutes"] = .int(Int(overlap.duration / 60))
        }
        if let gap = conflict.gap { object["gap_minutes"] = .int(Int(gap / 60)) }
        return object
    }
}
