package import Core
package import Foundation

/// The one rule for schedule conflicts. The assistant's `check_conflicts` tool and the nightly conflict findings both
/// ask it, so they never disagree about the same two events:
/// - **overlap**: two timed events share some time (half-open intervals: 10:00-11:00 and 11:00-12:00 do not);
/// - **all_day**: a timed event on the day of an all-day event (the whole local day, 23 or 25 hours on DST days).
///   Two all-day events on one day are not a conflict: they are day markers (picture day, a field trip);
/// - **travel**: no overlap, but the later one starts less than `travelGap` after the earlier one ends, at another
///   place (both places known, compared case-, space- and punctuation-insensitively; "Riverside Park, field 3" is at
///   "Riverside Park").
/// The same event posted in two chats (same title, same interval) is not in conflict with itself. Pure: no database,
/// no clock.
package struct ScheduleConflicts: Sendable, Hashable {
    /// A school-run sized trip in a town.
    package static let defaultTravelGap: TimeInterval = 30 * 60

    package enum Kind: String, Sendable, Hashable {
        case overlap
        case allDay = "all_day"
        case travel
    }

    /// An event as the rule sees it; `key` identifies it, so an event is never in conflict with itself.
    package struct Entry<Key: Hashable & Sendable>: Sendable {
        package let key: Key
        package let interval: EventInterval
        package let allDay: Bool
        package let title: String?
        package let place: String?
        /// The item the event is (its conversation and tracked-item ref): two rows of one item (a moved event's old
        /// row the app keeps) are never in conflict. Nil: only `key` identifies it.
        package let item: String?

        package init(key: Key, interval: EventInterval, allDay: Bool, title: String? = nil, place: String? = nil, item: String? = nil) {
            self.item = item
            self.key = key
            self.interval = interval
            self.allDay = allDay
            self.title = title
            self.place = place
        }
    }

    /// One conflict: `first` starts no later than `second`; `overlap` is the shared time (nil for travel).
    package struct Conflict<Key: Hashable & Sendable>: Sendable {
        package let first: Key
        package let second: Key
        package let kind: Kind
        package let overlap: EventInterval?
        /// Time between the earlier one's end and the later one's start (travel only).
        package let gap: TimeInterval?
    }

    package var travelGap: TimeInterval

    package init(travelGap: TimeInterval = Self.defaultTravelGap) {
        self.travelGap = max(0, travelGap)
    }

    /// The kind of conflict between two events, or nil when they do not conflict.
    package func kind<Key>(_ a: Entry<Key>, _ b: Entry<Key>) -> Kind? {
        guard a.key != b.key, a.item == nil || a.item != b.item, !Self.sameEvent(a, b) else { return nil }
        if a.interval.overlaps(b.interval) {
            if a.allDay && b.allDay { return nil }
            return a.allDay || b.allDay ? .allDay : .overlap
        }
        let placeA = Self.normalized(a.place), placeB = Self.normalized(b.place)
        guard !a.allDay, !b.allDay, !placeA.isEmpty, !placeB.isEmpty, !Self.samePlace(placeA, placeB) else { return nil }
        let (earlier, later) = a.interval.start <= b.interval.start ? (a, b) : (b, a)
        guard later.interval.start < earlier.interval.end.addingTimeInterval(travelGap) else { return nil }
        return .travel
    }

    /// The entries of `others` in conflict with `target` (`target` first in each), by when the conflict starts.
    package func conflicts<Key>(of target: Entry<Key>, among others: [Entry<Key>]) -> [Conflict<Key>] {
        others.enumerated()
            .compactMap { index, other in conflict(target, other).map { (Self.start($0, target, other), index, $0) } }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map(\.2)
    }

    /// Every conflicting pair among `entries`, each once with the earlier-starting entry first (ties in input
    /// order), by when the conflict starts. Sorted by start and swept, so entries further apart than the travel gap
    /// are never compared.
    package func allConflicts<Key>(among entries: [Entry<Key>]) -> [Conflict<Key>] {
        let order = entries.indices.sorted {
            (entries[$0].interval.start, entries[$0].interval.end, $0) < (entries[$1].interval.start, entries[$1].interval.end, $1)
        }
        var found: [(start: Date, index: Int, conflict: Conflict<Key>)] = []
        for (position, index) in order.enumerated() {
            let entry = entries[index]
            for other in order[(position + 1)...].map({ entries[$0] }) {
                guard other.interval.start < entry.interval.end.addingTimeInterval(travelGap) else { break }
                if let conflict = conflict(entry, other) {
                    found.append((Self.start(conflict, entry, other), found.count, conflict))
                }
            }
        }
        return found.sorted { ($0.start, $0.index) < ($1.start, $1.index) }.map(\.conflict)
    }

    private func conflict<Key>(_ first: Entry<Key>, _ second: Entry<Key>) -> Conflict<Key>? {
        guard let kind = kind(first, second) else { return nil }
        guard kind == .travel else {
            return Conflict(first: first.key, second: second.key, kind: kind, overlap: first.interval.intersection(second.interval), gap: nil)
        }
        let (earlier, later) = first.interval.start <= second.interval.start ? (first, second) : (second, first)
        return Conflict(first: first.key, second: second.key, kind: kind, overlap: nil,
                        gap: later.interval.start.timeIntervalSince(earlier.interval.end))
    }

    /// When a conflict starts: the shared time's start, or (travel) the later event's start.
    private static func start<Key>(_ conflict: Conflict<Key>, _ a: Entry<Key>, _ b: Entry<Key>) -> Date {
        conflict.overlap?.start ?? max(a.interval.start, b.interval.start)
    }

    static func sameEvent<Key>(_ a: Entry<Key>, _ b: Entry<Key>) -> Bool {
        a.interval == b.interval && a.title != nil && normalized(a.title) == normalized(b.title)
    }

    /// "riverside park" and "riverside park field 3" are one place: one name starts with the other, word for word.
    static func samePlace(_ a: String, _ b: String) -> Bool {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        return long == short || long.hasPrefix(short + " ")
    }

    /// Lowercased words, punctuation dropped: how titles and places are compared.
    package static func normalized(_ text: String?) -> String {
        (text ?? "").lowercased().split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).joined(separator: " ")
    }
}
