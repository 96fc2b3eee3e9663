import Core
import Foundation
import Testing
import Tools

/// The overlap rules on their own: no database, explicit instants.
@Suite struct IntervalTests {
    let newYork = TimeZone(identifier: "America/New_York")!
    let utc = TimeZone(identifier: "UTC")!

    func instant(_ iso: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: iso)!
    }

    func interval(_ date: String, _ time: String?, _ end: String?, in zone: TimeZone) -> EventInterval {
        EventInterval(date: day(date), time: time.flatMap { LocalTime(iso: $0) }, endTime: end.flatMap { LocalTime(iso: $0) }, in: zone)
    }

    @Test func wallClockUsesTheOffsetOfThatDay() {
        #expect(WallClock.instant(day("2026-03-05"), LocalTime(hour: 10, minute: 0)!, in: newYork) == instant("2026-03-05T15:00:00Z"))
        #expect(WallClock.instant(day("2026-07-05"), LocalTime(hour: 10, minute: 0)!, in: newYork) == instant("2026-07-05T14:00:00Z"))
    }

    @Test func aTimeInTheSpringForwardGapIsReadWithTheOffsetBeforeIt() {
        // 02:30 does not exist on 2026-03-08 in New York; read as EST it is 07:30Z, i.e. 03:30 EDT.
        #expect(WallClock.instant(day("2026-03-08"), LocalTime(hour: 2, minute: 30)!, in: newYork) == instant("2026-03-08T07:30:00Z"))
        #expect(WallClock.instant(day("2026-03-08"), LocalTime(hour: 1, minute: 59)!, in: newYork) == instant("2026-03-08T06:59:00Z"))
        #expect(WallClock.instant(day("2026-03-08"), LocalTime(hour: 3, minute: 0)!, in: newYork) == instant("2026-03-08T07:00:00Z"))
    }

    @Test func anAmbiguousFallBackTimeMeansItsFirstOccurrence() {
        // 01:30 happens twice on 2026-11-01: first in EDT (05:30Z), then in EST (06:30Z).
        #expect(WallClock.instant(day("2026-11-01"), LocalTime(hour: 1, minute: 30)!, in: newYork) == instant("2026-11-01T05:30:00Z"))
    }

    @Test func allDayEventsSpanTheLocalDayWhateverItsLength() {
        let normal = interval("2026-03-05", nil, nil, in: newYork)
        #expect(normal.start == instant("2026-03-05T05:00:00Z"))
        #expect(normal.duration == 24 * 3600)
        let springForward = interval("2026-03-08", nil, nil, in: newYork)
        #expect(springForward.duration == 23 * 3600)
        let fallBack = interval("2026-11-01", nil, nil, in: newYork)
        #expect(fallBack.duration == 25 * 3600)
    }

    @Test func anEventWithoutEndLastsSixtyMinutesOfRealTime() {
        let plain = interval("2026-03-05", "09:00", nil, in: utc)
        #expect(plain.duration == 3600)
        // 01:30 EST + 60 minutes is 03:30 EDT, not 02:30.
        let acrossGap = interval("2026-03-08", "01:30", nil, in: newYork)
        #expect(acrossGap.start == instant("2026-03-08T06:30:00Z"))
        #expect(acrossGap.end == instant("2026-03-08T07:30:00Z"))
        let sameStartAndEnd = interval("2026-03-05", "09:00", "09:00", in: utc)
        #expect(sameStartAndEnd.duration == 3600)
    }

    @Test func anEndBeforeTheStartRunsPastMidnight() {
        let overnight = interval("2026-03-05", "22:00", "01:00", in: utc)
        #expect(overnight.end == instant("2026-03-06T01:00:00Z"))
        #expect(overnight.duration == 3 * 3600)
    }

    @Test func wallClockSpanAcrossTheGapLastsOneRealHour() {
        let span = interval("2026-03-08", "01:30", "03:30", in: newYork)
        #expect(span.duration == 3600)
    }

    @Test func overlapIsHalfOpen() {
        let a = interval("2026-03-05", "09:00", "10:00", in: utc)
        let touching = interval("2026-03-05", "10:00", "11:00", in: utc)
        let overlapping = interval("2026-03-05", "09:59", "11:00", in: utc)
        let inside = interval("2026-03-05", "09:15", "09:45", in: utc)
        #expect(!a.overlaps(touching))
        #expect(!touching.overlaps(a))
        #expect(a.overlaps(overlapping))
        #expect(overlapping.overlaps(a))
        #expect(a.overlaps(inside))
        #expect(a.intersection(overlapping) == EventInterval(start: instant("2026-03-05T09:59:00Z"), end: instant("2026-03-05T10:00:00Z")))
        #expect(a.intersection(touching) == nil)
    }

    @Test func allDayConflictsWithTimedEventsThatDayOnly() {
        let allDay = interval("2026-03-05", nil, nil, in: newYork)
        #expect(allDay.overlaps(interval("2026-03-05", "23:30", nil, in: newYork)))
        #expect(allDay.overlaps(interval("2026-03-05", "00:00", "00:15", in: newYork)))
        #expect(!allDay.overlaps(interval("2026-03-06", "00:00", "01:00", in: newYork)))
        #expect(!allDay.overlaps(interval("2026-03-04", "23:00", "00:00", in: newYork)))
    }

    typealias Entry = ScheduleConflicts.Entry

    @Test func findsConflictsOfOneEntry() {
        let rule = ScheduleConflicts()
        let target = Entry(key: "target", interval: interval("2026-03-05", "09:00", "10:00", in: utc), allDay: false)
        let others = [
            Entry(key: "target", interval: target.interval, allDay: false),
            Entry(key: "late", interval: interval("2026-03-05", "09:30", nil, in: utc), allDay: false),
            Entry(key: "early", interval: interval("2026-03-05", "08:00", "09:15", in: utc), allDay: false),
            Entry(key: "touching", interval: interval("2026-03-05", "10:00", nil, in: utc), allDay: false),
            Entry(key: "other-day", interval: interval("2026-03-06", "09:00", nil, in: utc), allDay: false),
        ]
        let found = rule.conflicts(of: target, among: others)
        #expect(found.map(\.second) == ["early", "late"])
        #expect(found.allSatisfy { $0.first == "target" && $0.kind == .overlap })
        #expect(found[0].overlap?.duration == TimeInterval(15 * 60))
    }

    @Test("all-day, travel and the same event twice: the one rule of check_conflicts and the nightly findings")
    func kinds() {
        let rule = ScheduleConflicts(travelGap: 30 * 60)
        func timed(_ key: String, _ start: String, _ end: String, at place: String?, title: String? = nil) -> Entry<String> {
            Entry(key: key, interval: interval("2026-03-07", start, end, in: newYork), allDay: false, title: title ?? key, place: place)
        }
        let fieldDay = Entry(key: "field day", interval: interval("2026-03-07", nil, nil, in: newYork), allDay: true, title: "Field day")
        let pictureDay = Entry(key: "picture day", interval: interval("2026-03-07", nil, nil, in: newYork), allDay: true, title: "Picture day")
        let game = timed("game", "10:00", "12:00", at: "Riverside Park, field 3")
        #expect(rule.kind(fieldDay, pictureDay) == nil, "two all-day events are day markers")
        #expect(rule.kind(fieldDay, game) == .allDay)
        #expect(rule.kind(game, timed("party", "11:00", "13:00", at: "Jump Zone")) == .overlap)
        #expect(rule.kind(game, timed("swim", "12:20", "13:00", at: "the Y")) == .travel, "20 minutes to cross town")
        #expect(rule.kind(game, timed("picnic", "12:20", "13:00", at: "riverside park")) == nil, "same place: no trip")
        #expect(rule.kind(game, timed("lesson", "12:20", "13:00", at: nil)) == nil, "a place unknown: no travel conflict")
        #expect(rule.kind(game, timed("swim", "12:30", "13:00", at: "the Y")) == nil, "30 minutes are enough")
        #expect(rule.kind(game, timed("copy", "10:00", "12:00", at: "elsewhere", title: "GAME")) == nil,
                "the same event posted in two chats")
        let travel = rule.allConflicts(among: [timed("swim", "12:20", "13:00", at: "the Y"), game])
        #expect(travel.count == 1 && travel.first?.first == "game" && travel.first?.gap == TimeInterval(20 * 60) && travel.first?.overlap == nil)
    }

    @Test func findsEveryPairOnceAndMatchesBruteForce() {
        // A deterministic pseudo-random set of events, checked against asking the rule about every pair.
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let places = [nil, "the Y", "Riverside Park", "riverside park field 2", "school"]
        var entries: [Entry<Int>] = []
        for key in 0..<60 {
            let date = day("2026-03-05").adding(days: next(4))
            let time: LocalTime? = next(5) == 0 ? nil : LocalTime(hour: next(24), minute: next(4) * 15)
            let end: LocalTime? = time == nil || next(3) == 0 ? nil : LocalTime(hour: next(24), minute: next(4) * 15)
            entries.append(.init(key: key, interval: EventInterval(date: date, time: time, endTime: end, in: newYork), allDay: time == nil,
                                 title: "event \(key)", place: places[next(places.count)]))
        }
        let rule = ScheduleConflicts()
        var expected: Set<[Int]> = []
        var kinds: Set<ScheduleConflicts.Kind> = []
        for i in entries.indices {
            for j in entries.indices where i < j {
                if let kind = rule.kind(entries[i], entries[j]) { expected.insert([i, j]); kinds.insert(kind) }
            }
        }
        let found = rule.allConflicts(among: entries)
        let pairs = found.map { [min($0.first, $0.second), max($0.first, $0.second)] }
        #expect(pairs.count == Set(pairs).count, "a pair was reported twice")
        #expect(Set(pairs) == expected)
        #expect(kinds == [.overlap, .allDay, .travel], "the sample exercises every kind: \(kinds)")
        for conflict in found {
            #expect(entries[conflict.first].interval.start <= entries[conflict.second].interval.start)
        }
    }
}
