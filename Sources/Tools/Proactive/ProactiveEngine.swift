package import Foundation
package import Postgres

/// Computes every finding for a batch of users: one set-based read, then pure rules per user in memory.
package struct ProactiveEngine: Sendable {
    package let options: ProactiveOptions

    package init(options: ProactiveOptions = ProactiveOptions()) { self.options = options }

    /// Findings of `users` at `now`, grouped by user (users that do not exist are absent; users with nothing
    /// to raise map to an empty list).
    package func findings(for users: [UUID], now: Date, on db: PostgresConnection) async throws -> [UUID: [Finding]] {
        let rows = try await ProactiveReader(options: options).read(users, now: now, on: db)
        return findings(from: rows, now: now)
    }

    /// The rules over rows already read (pure, for tests and benchmarks).
    package func findings(from rows: ProactiveRows, now: Date) -> [UUID: [Finding]] {
        let conflicts = ConflictRule(options: options)
        let attention = AttentionRules(options: options)
        let events = Dictionary(grouping: rows.events, by: \.userID)
        var result: [UUID: [Finding]] = [:]
        for (user, zone) in rows.zones {
            result[user] = conflicts.findings(user: user, events: events[user] ?? [], zone: zone, now: now)
        }
        for r in rows.rsvps { if let zone = rows.zones[r.userID], let f = attention.rsvp(r, zone: zone, now: now) { result[r.userID, default: []].append(f) } }
        for d in rows.deadlines { if let zone = rows.zones[d.userID], let f = attention.deadline(d, zone: zone, now: now) { result[d.userID, default: []].append(f) } }
        for p in rows.priorities { if let zone = rows.zones[p.userID], let f = attention.priority(p, zone: zone, now: now) { result[p.userID, default: []].append(f) } }
        for r in rows.reminders { if let zone = rows.zones[r.userID], let f = attention.reminder(r, zone: zone, now: now) { result[r.userID, default: []].append(f) } }
        return result.mapValues { list in
            list.sorted { ($0.severity, $0.dueAt ?? .distantFuture, $0.subjectKey) < ($1.severity, $1.dueAt ?? .distantFuture, $1.subjectKey) }
        }
    }
}
