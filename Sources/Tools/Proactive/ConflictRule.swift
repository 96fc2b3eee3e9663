import Core
package import Foundation

/// The nightly conflict findings of one user: the pairs `ScheduleConflicts` (the one rule, which the assistant's
/// `check_conflicts` asks too) finds among her events of today and the next `conflictDays` days, each with a
/// suggestion. Intervals are those of `check_conflicts` (`EventInterval`): the date and wall times read in the user's
/// zone, with RFC 5545's DST rules (a missing end: 60 minutes; an end before the start: the next day).
struct ConflictRule: Sendable {
    package let options: ProactiveOptions

    package init(options: ProactiveOptions) { self.options = options }

    struct Placed {
        let event: ProactiveRows.Event
        let interval: EventInterval
        var allDay: Bool { event.time == nil }
    }

    package func findings(user: UUID, events: [ProactiveRows.Event], zone: TimeZone, now: Date) -> [Finding] {
        let today = LocalDate(now, in: zone)
        let windowEnd = WallClock.startOfDay(today.adding(days: options.conflictDays + 1), in: zone)
        let placed = events
            .map { Placed(event: $0, interval: EventInterval(date: $0.date, time: $0.time, endTime: $0.endTime, in: zone)) }
            .filter { $0.interval.end > now && $0.interval.start < windowEnd }
            .sorted { ($0.interval.start, $0.interval.end, $0.event.id.uuidString) < ($1.interval.start, $1.interval.end, $1.event.id.uuidString) }
        let rule = ScheduleConflicts(travelGap: options.travelGap)
        let entries = placed.enumerated().map { index, placed in
            ScheduleConflicts.Entry(key: index, interval: placed.interval, allDay: placed.allDay, title: placed.event.title,
                                    place: placed.event.location, item: placed.event.item)
        }
        var found: [String: Finding] = [:]
        for pair in rule.allConflicts(among: entries) {
            let finding = conflict(user: user, placed[pair.first], placed[pair.second], kind: pair.kind, zone: zone)
            found[finding.subjectKey] = found[finding.subjectKey] ?? finding
        }
        return found.values.sorted { ($0.dueAt ?? .distantPast, $0.subjectKey) < ($1.dueAt ?? .distantPast, $1.subjectKey) }
    }

    private func conflict(user: UUID, _ a: Placed, _ b: Placed, kind: ScheduleConflicts.Kind, zone: TimeZone) -> Finding {
        let type = kind.rawValue
        let severity: Finding.Severity = switch kind {
        case .overlap: .high
        case .travel: .medium
        case .allDay: .low
        }
        let pair = [a, b].sorted { $0.event.id.uuidString.lowercased() < $1.event.id.uuidString.lowercased() }
        let key = "conflict:" + pair.map { $0.event.id.uuidString.lowercased() }.joined(separator: ":")
        let fingerprint = Fingerprint.of([type] + pair.flatMap { placed in
            [placed.event.title, "\(placed.interval.start.timeIntervalSince1970)", "\(placed.interval.end.timeIntervalSince1970)",
             ScheduleConflicts.normalized(placed.event.location)]
        })
        let day = Wording.day(WallClock(timeZone: zone).wallTime(of: b.allDay ? a.interval.start : b.interval.start).date)
        let suggestion: String
        switch type {
        case "overlap":
            suggestion = "\(day): \(describe(a, zone)) overlaps \(describe(b, zone)). Options: ask another parent to take one, "
                + "arrive late to \(Wording.text(b.event.title, max: 40)), or decline one of them."
        case "travel":
            let minutes = Int(b.interval.start.timeIntervalSince(a.interval.end) / 60)
            suggestion = "\(day): \(describe(a, zone)) ends at \(Wording.clock(a.interval.end, in: zone)) and \(describe(b, zone)) "
                + "starts \(minutes) minutes later at another place (\(Int(options.travelGap / 60)) minutes needed to travel). "
                + "Options: leave early, arrange a ride, or arrive late."
        default:
            let (allDay, timed) = a.allDay ? (a, b) : (b, a)
            suggestion = "\(day): \(describe(timed, zone)) is on the day of \(Wording.text(allDay.event.title)) (all day). Check both can happen."
        }
        return Finding(
            userID: user, kind: .conflict, subjectKey: key, fingerprint: fingerprint, severity: severity,
            dueAt: min(a.interval.start, b.interval.start),
            title: type == "travel" ? "No time to travel on \(day)" : "Schedule conflict on \(day)",
            suggestion: suggestion,
            cites: pair.map { Citation(table: "calendar_events", id: $0.event.id) },
            details: [
                "type": .string(type),
                "travel_gap_minutes": .integer(Int64(options.travelGap / 60)),
                "events": .array([a, b].map { placed in
                    [
                        "id": .string(placed.event.id.uuidString.lowercased()), "title": .string(placed.event.title),
                        "start": .string(WallClock(timeZone: zone).iso(placed.interval.start)),
                        "end": .string(WallClock(timeZone: zone).iso(placed.interval.end)),
                        "all_day": .bool(placed.allDay), "location": placed.event.location.map { .string($0) } ?? .null,
                    ]
                }),
            ])
    }

    /// "the U9 game (10:00-12:00, Riverside Park)".
    private func describe(_ placed: Placed, _ zone: TimeZone) -> String {
        var parts: [String] = []
        if !placed.allDay {
            parts.append("\(Wording.clock(placed.interval.start, in: zone))-\(Wording.clock(placed.interval.end, in: zone))")
        }
        if let place = placed.event.location.map({ Wording.text($0, max: 60) }), !place.isEmpty { parts.append(place) }
        let title = Wording.text(placed.event.title, max: 60)
        return parts.isEmpty ? title : "\(title) (\(parts.joined(separator: ", ")))"
    }
}
