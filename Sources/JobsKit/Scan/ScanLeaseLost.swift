package import Foundation
import Postgres

/// A scan's claim on a conversation expired before its rows were committed, and another scanner (or a batch) has
/// taken the conversation over. Thrown inside the write transaction, so nothing of this attempt is committed; the
/// other holder's work stands. Not the conversation's failure: it is counted apart and nothing is recorded against it.
package struct ScanLeaseLost: Error, Sendable, Equatable, CustomStringConvertible {
    package let conversationID: UUID
    /// The lease owner this attempt ran as (`host:pid`, or `batch:<id>`).
    package let owner: String

    package init(conversationID: UUID, owner: String) {
        self.conversationID = conversationID
        self.owner = owner
    }

    package var description: String {
        "lost the lease on conversation \(conversationID.postgresValue): the claim of \(owner) expired before its rows "
            + "were committed and another scanner took the conversation over; nothing of this attempt was written "
            + "(if extraction takes longer than the lease, raise --lease-seconds)"
    }
}
