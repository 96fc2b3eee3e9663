import Foundation
import JSONKit

/// One thing that needs a parent's attention, computed by code from stored rows.
public struct Finding: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case conflict, rsvp, deadline, reminder
    }

    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case high, medium, low
        var order: Int { switch self { case .high: 0; case .medium: 1; case .low: 2 } }
        public static func < (a: Severity, b: Severity) -> Bool { a.order < b.order }
    }

    public var userID: UUID
    public var kind: Kind
    /// What the finding is about, stable while the subject exists: e.g. `conflict:<event id>:<event id>`.
    public var subjectKey: String
    /// A hash of the facts it rests on; it changes when the subject changes (an event moved, a deadline moved).
    public var fingerprint: String
    public var severity: Severity
    public var dueAt: Date?
    public var title: String
    /// The plain-language suggestion written by a template (no LLM).
    public var suggestion: String
    /// The rows it rests on.
    public var cites: [Citation]
    public var details: JSONValue

    /// The ids of every cited row.
    public var citedIDs: Set<UUID> { Set(cites.map(\.id)) }
}

/// A stored row a finding rests on.
public struct Citation: Sendable, Hashable, Codable {
    public var table: String
    public var id: UUID

    public init(table: String, id: UUID) {
        self.table = table
        self.id = id
    }

    public var json: JSONValue { ["table": .string(table), "id": .string(id.uuidString.lowercased())] }
}
