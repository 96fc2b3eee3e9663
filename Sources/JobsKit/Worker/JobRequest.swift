package import Foundation
import Postgres

/// One row of `job_requests` as a worker holds it after claiming it.
package struct JobRequest: Sendable, Hashable, Codable {
    /// What the app asked for: extract one conversation, or run the assistant for one user.
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case extract
        case assist
    }

    /// `job_requests.status` (the migration's CHECK lists the same values).
    package enum Status: String, PostgresEnum, Codable {
        case pending, running, done, failed
    }

    package let id: Int64
    package let kind: Kind
    package let conversationID: UUID?
    package let userID: UUID?
    /// Attempts so far, including the one this claim started.
    package let attempts: Int

    package init(id: Int64, kind: Kind, conversationID: UUID?, userID: UUID?, attempts: Int) {
        self.id = id
        self.kind = kind
        self.conversationID = conversationID
        self.userID = userID
        self.attempts = attempts
    }

    /// "extract 12 (conversation 0000…)" for logs and errors.
    package var label: String {
        switch kind {
        case .extract: "extract request \(id) (conversation \(conversationID?.uuidString.lowercased() ?? "?"))"
        case .assist: "assist request \(id) (user \(userID?.uuidString.lowercased() ?? "?"))"
        }
    }
}
