import Core
package import Foundation

/// Schedule conflicts among one user's events, on real instants in the user's zone:
/// - **overlap**: two timed events share some time (half-open intervals: 10:00-11:00 and 11:00-12:00 do not);
/// - **travel**: no overlap, but the second starts less than `travelGap` after the first ends, at a different
///   place (both places known, compared case-, space- and punctuation-insensitively; "Riverside Park, field 3"
///   is at "Riverside Park");
/// - **all_day**: a timed event on the day of an all-day event (the whole local day, 23 or 25 hours on DST days).
///   Two all-day events on one day are not a conflict (they are day markers: picture day, a field trip).
/// Intervals are those of `check_conflicts` (`EventInterval`): the date and wall times read in the user's zone,
/// with RFC 5545's DST rules (a missing end: 60 minutes; an end before the start: the next day). The same event posted in two chats
/// (same title, same interval) is not in conflict with itself.
package struct ConflictRule: Sendable {
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
        var found: [String: Finding] = [:]
        for (index, first) in placed.enumerated() {
            for second in placed[(index + 1)...] {
                guard second.interval.start < first.interval.end.addingTimeInterval(options.travelGap) else { break }
                guard first.event.id != second.event.id, !Self.sameEvent(first, second) else { continue }
                guard let finding = conflict(user: user, first, second, zone: zone) else { continue }
                found[finding.subjectKey] = found[finding.subjectKey] ?? finding
            }
        }
        return found.values.sorted { ($0.dueAt ?? .distantPast, $0.subjectKey) < ($1.dueAt ?? .distantPast, $1.subjectKey) }
    }

    static func sameEvent(_ a: Placed, _ b: Placed) -> Bool {
        a.interval == b.interval && normalized(a.event.title) == normalized(b.event.title)
    }

    /// "riverside park" and "riverside park field 3" are one place: one name starts with the other, word for word.
    static func samePlace(_ a: String, _ b: String) -> Bool {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        return long == short || long.hasPrefix(short + " ")
    }

    static func normalized(_ text: String?) -> String {
        (text ?? "").lowercased().split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).joined(separator: " ")
    }

    private func conflict(user: UUID, _ a: Placed, _ b: Placed, zone: TimeZone) -> Finding? {
        let type: String
        let severity: Finding.Severity
        if a.interval.overlaps(b.interval) {
            if a.allDay && b.allDay { return nil }
            (type, severity) = a.allDay || b.allDay ? ("all_day", .low) : ("overlap", .high)
        } else {
            let placeA = Self.normalized(a.event.location), placeB = Self.normalized(b.event.location)
            guard !a.allDay, !b.allDay, !placeA.isEmpty, !placeB.isEmpty, !Self.samePlace(placeA, placeB) else { return nil }
            (type, severity) = ("travel", .medium)
        }
        let pair = [a, b].sorted { $0.event.id.uuidString.lowercased() < $1.event.id.uuidString.lowercased() }
        let key = "conflict:" + pair.map { $0.event.id.uuidString.lowercased() }.joined(separator: ":")
        let fingerprint = Fingerprint.of([type] + pair.flatMap { placed in
            [placed.event.title, "\(placed.interval.start.timeIntervalSince1970)", "\(placed.interval.end.timeIntervalSince1970)",
             Self.normalized(placed.event.location)]
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
