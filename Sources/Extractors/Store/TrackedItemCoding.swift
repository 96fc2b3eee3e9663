import Core
import Foundation

/// An item's JSON in `tracked_items.item` and in a batch's input snapshot: one key, the feature's short name, holding
/// the feature's own item (`{"event": {...}}`), so the stored form is the item types' own Codable form.
extension ItemBody: Codable {
    private enum CodingKeys: String, CodingKey { case event, decision, rsvp, deadline, priority }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let item = try container.decodeIfPresent(EventItem.self, forKey: .event) {
            self = .event(item)
        } else if let item = try container.decodeIfPresent(DecisionItem.self, forKey: .decision) {
            self = .decision(item)
        } else if let item = try container.decodeIfPresent(RSVPItem.self, forKey: .rsvp) {
            self = .rsvp(item)
        } else if let item = try container.decodeIfPresent(DeadlineItem.self, forKey: .deadline) {
            self = .deadline(item)
        } else if let item = try container.decodeIfPresent(PriorityItem.self, forKey: .priority) {
            self = .priority(item)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a tracked item names none of event, decision, rsvp, deadline, priority"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .event(let item): try container.encode(item, forKey: .event)
        case .decision(let item): try container.encode(item, forKey: .decision)
        case .rsvp(let item): try container.encode(item, forKey: .rsvp)
        case .deadline(let item): try container.encode(item, forKey: .deadline)
        case .priority(let item): try container.encode(item, forKey: .priority)
        }
    }

    /// The first word of its rows' keys (`<prefix>:<conversation>:<ref>`), as the rows were keyed before refs.
    var rowKeyPrefix: String {
        switch self {
        case .event: "event"
        case .decision: "decision"
        case .rsvp: "rsvp"
        case .deadline: "deadline"
        case .priority: "priority"
        }
    }
}

/// A tracked item in a batch's input snapshot: the state the request was built from travels with it to `batch collect`.
package struct StoredTrackedItem: Codable, Sendable, Hashable {
    var ref: String
    var item: ItemBody
    var status: ItemStatus
    var metFor: [String]
    var until: LocalDate?
    var origin: ItemOrigin
    var confirmed: Bool
    var closedInApp: Bool

    package init(_ tracked: TrackedItem) {
        ref = tracked.ref
        item = tracked.body
        status = tracked.status
        metFor = tracked.metFor.sorted()
        until = tracked.until
        origin = tracked.origin
        confirmed = tracked.confirmed
        closedInApp = tracked.closedInApp
    }

    package var tracked: TrackedItem {
        TrackedItem(ref: ref, body: item, status: status, metFor: Set(metFor), until: until, origin: origin,
                    confirmed: confirmed, closedInApp: closedInApp)
    }
}

extension ConversationState {
    /// The state as a batch snapshot stores it.
    package var stored: [StoredTrackedItem] { items.map(StoredTrackedItem.init) }

    /// The state a batch snapshot stored.
    package init(stored: [StoredTrackedItem]) { self.init(items: stored.map(\.tracked)) }
}

extension ExtractionFeature {
    /// The five parent features whose items live across nights (`ItemBody`); a registry's other features are written
    /// as before, keyed by their items' identity.
    static let tracked: Set<ExtractionFeature> = [.calendarEvents, .decisions, .rsvps, .deadlines, .priorityMessages]

    /// The first word of each tracked feature's row keys.
    static let rowKeyPrefixes: [ExtractionFeature: String] = [
        .calendarEvents: "event", .decisions: "decision", .rsvps: "rsvp", .deadlines: "deadline", .priorityMessages: "priority",
    ]
}
