import Core
package import Foundation

/// Unanswered RSVPs, deadlines not done, priority messages not met and reminders coming due, each in the user's own
/// calendar.
struct AttentionRules: Sendable {
    package let options: ProactiveOptions

    package init(options: ProactiveOptions) { self.options = options }

    /// An RSVP still pending whose reply-by date or event is at most `rsvpDays` ahead (a passed reply-by date
    /// with the event still to come counts, and is urgent).
    package func rsvp(_ r: ProactiveRows.RSVP, zone: TimeZone, now: Date) -> Finding? {
        let today = LocalDate(now, in: zone)
        let horizon = today.adding(days: options.rsvpDays)
        guard r.eventDate >= today, r.eventDate <= horizon || (r.deadline.map { $0 <= horizon } ?? false) else { return nil }
        let overdue = r.deadline.map { $0 < today } ?? false
        let soon = min(r.deadline.map { today.days(until: $0) } ?? Int.max, today.days(until: r.eventDate) - 1)
        let severity: Finding.Severity = overdue || soon <= 1 ? .high : .medium
        let name = Wording.text(r.eventName)
        let who = r.requestedBy.map { "\(Wording.text($0, max: 40))'s" } ?? "the"
        var suggestion = "You have not answered \(who) invitation to \(name) (\(Wording.day(r.eventDate))) in \(Wording.text(r.conversation, max: 60))."
        if let deadline = r.deadline {
            suggestion += overdue
                ? " The reply-by date was \(Wording.day(deadline)); reply now."
                : " Reply by \(Wording.relativeDay(deadline, today: today))."
        } else {
            suggestion += " Reply before the day."
        }
        return Finding(
            userID: r.userID, kind: .rsvp, subjectKey: "rsvp:\(r.id.uuidString.lowercased())",
            fingerprint: Fingerprint.of([r.eventName, r.eventDate.iso, r.deadline?.iso ?? "-"]), severity: severity,
            dueAt: WallClock.startOfDay(r.deadline ?? r.eventDate, in: zone),
            title: "RSVP: \(name)", suggestion: suggestion, cites: [Citation(table: "rsvp_tracking", id: r.id)],
            details: ["event_date": .string(r.eventDate.iso), "deadline": r.deadline.map { .string($0.iso) } ?? .null,
                      "overdue": .bool(overdue)])
    }

    /// A deadline not done, due today or in the next `deadlineDays` days.
    package func deadline(_ d: ProactiveRows.Deadline, zone: TimeZone, now: Date) -> Finding? {
        let today = LocalDate(now, in: zone)
        let days = today.days(until: d.deadline)
        guard (0...options.deadlineDays).contains(days) else { return nil }
        let due = d.dueAt ?? d.time.map { WallClock.instant(d.deadline, $0, in: zone) } ?? WallClock.startOfDay(d.deadline.adding(days: 1), in: zone)
        guard due > now else { return nil }
        let at = d.time.map { " at " + $0.hourMinute } ?? ""
        return Finding(
            userID: d.userID, kind: .deadline, subjectKey: "deadline:\(d.id.uuidString.lowercased())",
            fingerprint: Fingerprint.of([d.task, d.deadline.iso, d.time?.iso ?? "-"]), severity: days <= 1 ? .high : .medium,
            dueAt: due, title: "Due \(Wording.relativeDay(d.deadline, today: today))",
            suggestion: "Due \(Wording.relativeDay(d.deadline, today: today))\(at): \(Wording.text(d.task, max: 120)).",
            cites: [Citation(table: "deadlines", id: d.id)],
            details: ["deadline": .string(d.deadline.iso), "days_left": .integer(Int64(days))])
    }

    /// An urgent or high priority message (`ProactiveReader.priorities`: not met, raised by nothing else) about today
    /// or the next `priorityDays` days: the day of an event extracted from it, or, without one, a message sent today
    /// or yesterday (an urgent message is about the day it is sent or the next, FEATURES.md).
    package func priority(_ p: ProactiveRows.Priority, zone: TimeZone, now: Date) -> Finding? {
        let today = LocalDate(now, in: zone)
        let sentDay = LocalDate(p.sentAt, in: zone)
        if let day = p.eventDay {
            guard (0...options.priorityDays).contains(today.days(until: day)) else { return nil }
        } else {
            guard (-1...0).contains(today.days(until: sentDay)) else { return nil }
        }
        let urgent = p.priority == "urgent"
        let day = p.eventDay ?? max(sentDay, today)
        let from = (p.sender.map { Wording.text($0, max: 40) } ?? "Someone") + " in " + Wording.text(p.conversation, max: 60)
        var suggestion = "\(from): \"\(Wording.text(p.text, max: 200))\""
        let reason = Wording.text(p.reason, max: 200)
        if !reason.isEmpty { suggestion += " " + (reason.hasSuffix(".") ? reason : reason + ".") }
        return Finding(
            userID: p.userID, kind: .priority, subjectKey: "priority:\(p.messageID.uuidString.lowercased())",
            fingerprint: Fingerprint.of([p.priority, p.reason, p.eventDay?.iso ?? "-"]), severity: urgent ? .high : .medium,
            dueAt: WallClock.startOfDay(day, in: zone),
            title: (urgent ? "Urgent: " : "Asked of you: ") + Wording.relativeDay(day, today: today),
            suggestion: suggestion, cites: [Citation(table: "priority_messages", id: p.messageID)],
            details: ["priority": .string(p.priority), "day": .string(day.iso), "sent_at": .string(WallClock(timeZone: zone).iso(p.sentAt))])
    }

    /// A pending reminder due within `reminderHours`.
    package func reminder(_ r: ProactiveRows.Reminder, zone: TimeZone, now: Date) -> Finding? {
        guard r.at > now, r.at <= now.addingTimeInterval(Double(options.reminderHours) * 3600) else { return nil }
        let today = LocalDate(now, in: zone)
        let day = WallClock(timeZone: zone).wallTime(of: r.at).date
        return Finding(
            userID: r.userID, kind: .reminder, subjectKey: "reminder:\(r.id.uuidString.lowercased())",
            fingerprint: Fingerprint.of([r.title, "\(r.at.timeIntervalSince1970)"]), severity: .medium, dueAt: r.at,
            title: "Reminder \(Wording.relativeDay(day, today: today))",
            suggestion: "Reminder \(Wording.relativeDay(day, today: today)) at \(Wording.clock(r.at, in: zone)): \(Wording.text(r.title, max: 120)).",
            cites: [Citation(table: "reminders", id: r.id)], details: ["at": .string(WallClock(timeZone: zone).iso(r.at))])
    }
}
