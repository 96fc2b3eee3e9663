package import Core
import Foundation

/// Finds overlapping events. Pure (no database, no clock), so the rules can be tested on their own.
package enum ConflictFinder {
    /// Anything with an interval; `Key` identifies it so an event is never in conflict with itself.
    package struct Entry<Key: Hashable & Sendable>: Sendable {
        package let key: Key
        package let interval: EventInterval
        package init(key: Key, interval: EventInterval) {
            self.key = key
            self.interval = interval
        }
    }

    /// One overlap between two entries and the time they share.
    package struct Conflict<Key: Hashable & Sendable>: Sendable {
        package let first: Key
        package let second: Key
        package let overlap: EventInterval
    }

    /// The entries of `others` (other than `target` itself) that overlap `target`, earliest first.
    package static func conflicts<Key>(of target: Entry<Key>, among others: [Entry<Key>]) -> [Conflict<Key>] {
        others
            .filter { $0.key != target.key }
            .compactMap { other in
                target.interval.intersection(other.interval).map { Conflict(first: target.key, second: other.key, overlap: $0) }
            }
            .sorted { $0.overlap.start < $1.overlap.start }
    }

    /// Every overlapping pair among `entries`, each reported once with the earlier-starting entry first.
    /// Sorted by start and swept, so entries that end before the next one starts are never compared.
    package static func allConflicts<Key>(among entries: [Entry<Key>]) -> [Conflict<Key>] {
        let sorted = entries.sorted { ($0.interval.start, $0.interval.end) < ($1.interval.start, $1.interval.end) }
        var result: [Conflict<Key>] = []
        for (index, entry) in sorted.enumerated() {
            for other in sorted[(index + 1)...] {
                guard other.interval.start < entry.interval.end else { break }
                if other.key != entry.key, let overlap = entry.interval.intersection(other.interval) {
                    result.append(Conflict(first: entry.key, second: other.key, overlap: overlap))
                }
            }
        }
        return result.sorted { $0.overlap.start < $1.overlap.start }
    }
}
