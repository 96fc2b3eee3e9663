import Chrono

extension Extraction {
    /// Adds another window's items, dropping any already present (overlapping windows see some messages twice).
    public mutating func merge(_ other: Extraction) {
        for item in other.events where !events.contains(where: { $0.mergeKey == item.mergeKey }) { events.append(item) }
        for item in other.decisions where !decisions.contains(where: { $0.mergeKey == item.mergeKey }) { decisions.append(item) }
        for item in other.priorities where !priorities.contains(where: { $0.messageID == item.messageID }) { priorities.append(item) }
        for item in other.rsvps {
            if let index = rsvps.firstIndex(where: { $0.mergeKey == item.mergeKey }) {
                // A later window may see answers the earlier one did not.
                for response in item.responses {
                    rsvps[index].responses.removeAll { $0.participantID == response.participantID }
                    rsvps[index].responses.append(response)
                }
            } else {
                rsvps.append(item)
            }
        }
        for item in other.deadlines where !deadlines.contains(where: { $0.mergeKey == item.mergeKey }) { deadlines.append(item) }
        notes += other.notes
    }
}

/// The identity of an item: its first (earliest) source message and its key date. Also the basis of the
/// idempotency keys in the database, so re-running finds the same row.
extension EventItem { public var mergeKey: String { "\(sources.first ?? ""):\(date.iso):\(time?.iso ?? "-")" } }
extension DecisionItem { public var mergeKey: String { "\(sources.first ?? ""):\(category)" } }
extension RSVPItem { public var mergeKey: String { "\(sources.first ?? ""):\(eventDate.iso)" } }
extension DeadlineItem { public var mergeKey: String { "\(sources.first ?? ""):\(deadline.iso)" } }
