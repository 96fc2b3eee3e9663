package import Foundation
package import Core

/// One thing that needs a parent's attention, computed by code from stored rows.
package struct Finding: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case conflict, rsvp, deadline, reminder, priority
    }

    package enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case high, medium, low
        var order: Int { switch self { case .high: 0; case .medium: 1; case .low: 2 } }
        package static func < (a: Severity, b: Severity) -> Bool { a.order < b.order }
    }

    package var userID: UUID
    package var kind: Kind
    /// What the finding is about, stable while the subject exists: e.g. `conflict:<event id>:<event id>`.
    package var subjectKey: String
    /// A hash of the facts it rests on; it changes when the subject changes (an event moved, a deadline moved).
    package var fingerprint: String
    package var severity: Severity
    package var dueAt: Date?
    package var title: String
    /// The plain-language suggestion written by a template (no LLM).
    package var suggestion: String
    /// The rows it rests on.
    package var cites: [Citation]
    package var details: JSONValue

    /// The ids of every cited row.
    package var citedIDs: Set<UUID> { Set(cites.map(\.id)) }
}

/// A stored row a finding rests on.
package struct Citation: Sendable, Hashable, Codable {
    package var table: String
    package var id: UUID

    package init(table: String, id: UUID) {
        self.table = table
        self.id = id
    }

    package var json: JSONValue { ["table": .string(table), "id": .string(id.uuidString.lowercased())] }
}
