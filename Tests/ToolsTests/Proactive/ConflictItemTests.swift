import Core
import Foundation
import Testing
import Tools

/// An event never conflicts with itself (issue 46): two rows of one tracked item (the same conversation and ref,
/// `ProactiveRows.Event.item`) raise no conflict; rows of two items at the same time do.
@Suite struct ConflictItemTests {
    typealias Rule = ConflictRuleTests

    static func event(_ n: Int, _ title: String, _ start: String, _ end: String, item: String?) -> ProactiveRows.Event {
        var event = Rule.event(n, title, "2026-11-28", start, end, at: "Jump Zone")
        event.item = item
        return event
    }

    @Test func twoRowsOfOneItemAreNoConflict() {
        let old = Self.event(1, "Emma's party", "14:00", "16:00", item: "c1:e1")
        let moved = Self.event(2, "Emma's party (moved)", "15:00", "17:00", item: "c1:e1")
        #expect(Rule.findings([old, moved], now: "2026-11-23T12:00:00Z").isEmpty)
        // Another conversation's e1 is another item: a conflict.
        let other = Self.event(3, "Game", "15:00", "17:00", item: "c2:e1")
        #expect(Rule.findings([old, other], now: "2026-11-23T12:00:00Z").count == 1)
        // Without an item (rows read before it existed), only the row itself is the same event.
        let unkeyed = Self.event(4, "Game", "15:30", "16:30", item: nil)
        #expect(Rule.findings([old, moved, unkeyed], now: "2026-11-23T12:00:00Z").count == 2)
    }

    @Test func theRuleItselfComparesItems() {
        let rule = ScheduleConflicts()
        let zone = TimeZone(identifier: "Europe/London")!
        let interval = EventInterval(date: LocalDate(iso: "2026-12-12")!, time: LocalTime(iso: "14:00"), endTime: LocalTime(iso: "16:00"), in: zone)
        let later = EventInterval(date: LocalDate(iso: "2026-12-12")!, time: LocalTime(iso: "15:00"), endTime: LocalTime(iso: "17:00"), in: zone)
        let a = ScheduleConflicts.Entry(key: 1, interval: interval, allDay: false, title: "Party", item: "c:e1")
        let b = ScheduleConflicts.Entry(key: 2, interval: later, allDay: false, title: "Party at 3", item: "c:e1")
        let c = ScheduleConflicts.Entry(key: 3, interval: later, allDay: false, title: "Game", item: "c:e2")
        #expect(rule.kind(a, b) == nil)
        #expect(rule.kind(a, c) == .overlap)
        #expect(rule.allConflicts(among: [a, b, c]).map { [$0.first, $0.second] } == [[1, 3], [2, 3]], "each row of e1 with e2, never e1 with e1")
    }
}
